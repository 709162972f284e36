import { Global, Module } from '@nestjs/common';
import { LinkBuilder } from './link-builder';
import { RouteTable } from './route-table';

@Global()
@Module({ providers: [LinkBuilder, RouteTable], exports: [LinkBuilder, RouteTable] })
export class CommonModule {}
