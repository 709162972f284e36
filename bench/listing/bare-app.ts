/**
 * The yardstick of the listing bench: a bare NestJS app (Express, no pipes, filters or middleware) whose one
 * endpoint answers a fixed JSON body. Started by bench/listing/main.ts as `tsx bare-app.ts <port> <body file>`.
 */
import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import { Controller, Get, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';

const [port, bodyFile] = process.argv.slice(2);
const body: unknown = JSON.parse(readFileSync(bodyFile, 'utf8'));

@Controller('api_v1/targets/:targetName/resources')
class BareController {
  @Get()
  list(): unknown {
    return body;
  }
}

@Module({ controllers: [BareController] })
class BareModule {}

void NestFactory.create(BareModule, { logger: false }).then((app) => app.listen(Number(port), '127.0.0.1'));
