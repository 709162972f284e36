import { Global, Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { LinkBuilder } from './link-builder';
import { RouteTable } from './route-table';

@Global()
@Module({
  imports: [DiscoveryModule],
  providers: [LinkBuilder, RouteTable],
  exports: [LinkBuilder, RouteTable],
})
export class CommonModule {}
