import { Module } from '@nestjs/common';
import { TargetsController } from './targets.controller';

/** The targets as the API shows them (the registry itself is `@app/targets`). */
@Module({ controllers: [TargetsController] })
export class TargetEndpointsModule {}
