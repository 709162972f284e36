import { Module } from '@nestjs/common';
import { AppConfig } from '@app/config';
import { KEYWORD_ENHANCER, type KeywordEnhancer } from './keyword-enhancer';
import { SciGraphKeywordEnhancer } from './scigraph-keyword-enhancer';
import { WordNetKeywordEnhancer } from './wordnet/wordnet-keyword-enhancer';

/** The enhancer the configuration names (KEYWORD_ENHANCER): the embedded WordNet one unless told otherwise. */
function createKeywordEnhancer(config: AppConfig): KeywordEnhancer {
  const settings = config.keywordEnhancer;
  return settings.kind === 'scigraph' ? new SciGraphKeywordEnhancer(settings) : new WordNetKeywordEnhancer();
}

/**
 * Provides the configured KeywordEnhancer under the KEYWORD_ENHANCER token, to the API and the worker alike
 * (both import ConfigModule.forRoot, which makes AppConfig injectable).
 */
@Module({
  providers: [{ provide: KEYWORD_ENHANCER, inject: [AppConfig], useFactory: createKeywordEnhancer }],
  exports: [KEYWORD_ENHANCER],
})
export class KeywordsModule {}
