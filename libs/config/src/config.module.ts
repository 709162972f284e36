import { DynamicModule, Global, Module } from '@nestjs/common';
import type { LoadedSettings } from './settings';

/** Makes each settings class loaded at start-up injectable everywhere, by its class. */
@Global()
@Module({})
export class ConfigModule {
  static forRoot(settings: LoadedSettings): DynamicModule {
    const providers = settings.entries().map(([type, instance]) => ({ provide: type, useValue: instance }));
    return { module: ConfigModule, providers, exports: providers.map(({ provide }) => provide) };
  }
}
