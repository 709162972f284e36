import { Module } from '@nestjs/common';
import { KEYWORD_ENHANCER, type KeywordEnhancer } from './keyword-enhancer';
import { KeywordSettings, type KeywordEnhancerSettings } from './keywords.settings';
import { HttpKeywordEnhancer } from './vocabularies/http-keyword-enhancer';
import { OlsVocabulary } from './vocabularies/ols-vocabulary';
import { SciGraphVocabulary } from './vocabularies/scigraph-vocabulary';
import { SkosmosVocabulary } from './vocabularies/skosmos-vocabulary';
import type { VocabularyService } from './vocabularies/vocabulary-service';
import { WordNetKeywordEnhancer } from './wordnet/wordnet-keyword-enhancer';

/**
 * The enhancer the configuration names (KEYWORD_ENHANCER): the embedded WordNet one, or a vocabulary service
 * over HTTP that falls back to it.
 */
function createKeywordEnhancer(keywords: KeywordSettings): KeywordEnhancer {
  const settings = keywords.enhancerSettings;
  const embedded = new WordNetKeywordEnhancer();
  if (settings.kind === 'embedded') return embedded;
  return new HttpKeywordEnhancer(vocabulary(settings), settings, embedded);
}

function vocabulary(settings: Exclude<KeywordEnhancerSettings, { kind: 'embedded' }>): VocabularyService {
  switch (settings.kind) {
    case 'scigraph':
      return new SciGraphVocabulary();
    case 'ols':
      return new OlsVocabulary(settings);
    case 'skosmos':
      return new SkosmosVocabulary(settings);
  }
}

/**
 * Provides the configured KeywordEnhancer under the KEYWORD_ENHANCER token, to the API and the worker alike
 * (both import ConfigModule.forRoot, which makes KeywordSettings injectable), so that the enhancement service and
 * `automatic` transfers use the same one.
 */
@Module({
  providers: [{ provide: KEYWORD_ENHANCER, inject: [KeywordSettings], useFactory: createKeywordEnhancer }],
  exports: [KEYWORD_ENHANCER],
})
export class KeywordsModule {}
