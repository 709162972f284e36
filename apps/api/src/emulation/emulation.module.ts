import { Module } from '@nestjs/common';
import { EaasiAliasController } from './eaasi-alias.controller';
import { EmulationController } from './emulation.controller';
import { EmulationService } from './emulation.service';
import { EmulationStore } from './emulation-store';
import { ProposerClient } from './proposer-client';

/** The emulation service: proposals at the EaaSI environment proposer for a user's finished download. */
@Module({
  controllers: [EmulationController, EaasiAliasController],
  providers: [EmulationService, EmulationStore, ProposerClient],
})
export class EmulationModule {}
