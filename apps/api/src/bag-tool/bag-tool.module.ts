import { Module } from '@nestjs/common';
import { BagToolController } from './bag-tool.controller';
import { BagToolService } from './bag-tool.service';

/** The BagIt tool: a zip in, the bag of its files out. */
@Module({ controllers: [BagToolController], providers: [BagToolService] })
export class BagToolModule {}
