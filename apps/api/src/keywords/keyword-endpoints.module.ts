import { Module } from '@nestjs/common';
import { KeywordsModule } from '@app/keywords';
import { KeywordEnhancementController, ResourceKeywordsController } from './keywords.controller';
import { KeywordsService } from './keywords.service';

/** Keywords of resources and the keyword enhancement service, over the configured enhancer. */
@Module({
  imports: [KeywordsModule],
  controllers: [ResourceKeywordsController, KeywordEnhancementController],
  providers: [KeywordsService],
})
export class KeywordEndpointsModule {}
