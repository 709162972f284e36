import { Module } from '@nestjs/common';
import { ApiRootController } from './api-root.controller';

/** The API's entry point, linking to the rest. */
@Module({ controllers: [ApiRootController] })
export class ApiRootModule {}
