import { Module } from '@nestjs/common';
import { EmulationController } from './emulation.controller';
import { EmulationService } from './emulation.service';
import { EmulationStore } from './emulation-store';
import { ProposerClient } from './proposer-client';

/** The emulation service: proposals at the EaaSI environment proposer for a user's finished download. */
@Module({
  controllers: [EmulationController],
  providers: [EmulationService, EmulationStore, ProposerClient],
})
export class EmulationModule {}
