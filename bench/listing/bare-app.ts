/**
 * The yardstick of the listing bench: a bare NestJS app (Express, no pipes, filters or middleware) whose one
 * endpoint answers a fixed JSON body. Started by bench/listing/main.ts with the API's node options and
 * allocator (scripts/start-app.sh, PRESQT_APP_MAIN), on port BARE_PORT, answering the JSON in BARE_BODY_FILE.
 */
import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import { Controller, Get, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';

const body: unknown = JSON.parse(readFileSync(process.env.BARE_BODY_FILE!, 'utf8'));

@Controller('api_v1/targets/:targetName/resources')
class BareController {
  @Get()
  list(): unknown {
    return body;
  }
}

@Module({ controllers: [BareController] })
class BareModule {}

void NestFactory.create(BareModule, { logger: false }).then((app) =>
  app.listen(Number(process.env.BARE_PORT), '127.0.0.1'),
);
