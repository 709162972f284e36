import { DynamicModule, Module } from '@nestjs/common';
import { AppConfig, ConfigModule } from '@app/config';
import { jobQueuesModules } from '@app/jobs';
import { TargetsModule, TargetsRegistry } from '@app/targets';
import { QueueReadiness } from './queue-readiness';

@Module({})
export class WorkerModule {
  static register(config: AppConfig, targets: TargetsRegistry): DynamicModule {
    return {
      module: WorkerModule,
      imports: [ConfigModule.forRoot(config), TargetsModule.forRoot(targets), ...jobQueuesModules(config)],
      providers: [QueueReadiness],
    };
  }
}
