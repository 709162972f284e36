import { Module } from '@nestjs/common';
import Redis from 'ioredis';
import { AppConfig } from '@app/config';
import { EmulationController } from './emulation.controller';
import { EmulationService } from './emulation.service';
import { EMULATION_REDIS, EmulationStore } from './emulation-store';
import { ProposerClient } from './proposer-client';

/** The emulation service: proposals at the EaaSI environment proposer for a user's finished download. */
@Module({
  controllers: [EmulationController],
  providers: [
    EmulationService,
    EmulationStore,
    ProposerClient,
    {
      provide: EMULATION_REDIS,
      inject: [AppConfig],
      useFactory: (config: AppConfig) => new Redis(config.redisUrl, { maxRetriesPerRequest: 3 }),
    },
  ],
})
export class EmulationModule {}
