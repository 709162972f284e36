import { Module } from '@nestjs/common';
import { ServicesController } from './services.controller';

/** The catalogue of services besides the targets. */
@Module({ controllers: [ServicesController] })
export class ServicesModule {}
