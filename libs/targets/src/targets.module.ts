import { DynamicModule, Global, Module } from '@nestjs/common';
import { TargetsRegistry } from './targets-registry';

/** Makes the targets loaded at start-up injectable everywhere. */
@Global()
@Module({})
export class TargetsModule {
  static forRoot(registry: TargetsRegistry): DynamicModule {
    return {
      module: TargetsModule,
      providers: [{ provide: TargetsRegistry, useValue: registry }],
      exports: [TargetsRegistry],
    };
  }
}
