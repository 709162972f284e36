import { setting, Settings } from '@app/config';

/** Which keyword enhancer a deployment uses, and where its vocabulary service is. */
export type KeywordEnhancerSettings =
  | { kind: 'embedded' }
  | { kind: 'scigraph'; url: string; timeoutMs: number }
  | { kind: 'ols'; url: string; timeoutMs: number; ontologies: string[] }
  | { kind: 'skosmos'; url: string; timeoutMs: number; vocabulary: string; language: string };

/** The keyword enhancer (docs/keywords.md): the embedded WordNet one, or a vocabulary service. */
export class KeywordSettings extends Settings(
  'Keywords',
  {
    enhancer: setting.oneOf('KEYWORD_ENHANCER', ['embedded', 'scigraph', 'ols', 'skosmos'], {
      default: 'embedded',
      doc: '`embedded` (WordNet, offline), `ols`, `skosmos` or `scigraph` ([keywords](keywords.md))',
    }),
    scigraphUrl: setting.url('SCIGRAPH_URL', {
      expected: 'the absolute http(s) URL of a SciGraph service',
      example: 'https://scigraph.example.org/scigraph',
      base: true,
      doc: 'the SciGraph service for `scigraph` (required with it)',
    }),
    olsUrl: setting.url('OLS_URL', {
      expected: 'the absolute http(s) URL of an OLS4 service',
      example: 'https://www.ebi.ac.uk/ols4',
      base: true,
      default: 'https://www.ebi.ac.uk/ols4',
      doc: 'the OLS4 service for `ols`',
    }),
    olsOntologies: setting.text('OLS_ONTOLOGIES', {
      pattern: /^\s*[A-Za-z0-9_-]+(\s*,\s*[A-Za-z0-9_-]+)*\s*$/,
      expected: 'a comma-separated list of OLS ontology ids, such as envo,go,chebi',
      read: (list) => list.split(',').map((id) => id.trim().toLowerCase()),
      default: ['envo', 'go', 'chebi', 'uberon', 'pato', 'obi'],
      shownDefault: '`envo,go,chebi,uberon,pato,obi`',
      doc: 'the ontologies `ols` searches',
    }),
    skosmosUrl: setting.url('SKOSMOS_URL', {
      expected: 'the absolute http(s) URL of a Skosmos service (before /rest/v1)',
      example: 'https://agrovoc.fao.org/browse',
      base: true,
      doc: 'the Skosmos service for `skosmos` (required with it)',
    }),
    skosmosVocabulary: setting.text('SKOSMOS_VOCABULARY', {
      pattern: /^[A-Za-z0-9_.-]+$/,
      expected: 'a Skosmos vocabulary id, such as agrovoc',
      default: 'agrovoc',
      doc: 'the Skosmos vocabulary `skosmos` searches',
    }),
    skosmosLanguage: setting.text('SKOSMOS_LANGUAGE', {
      pattern: /^[A-Za-z]{2,3}(-[A-Za-z0-9]+)*$/,
      expected: 'a language code, such as en',
      default: 'en',
      doc: 'the language of the labels `skosmos` searches and answers',
    }),
    timeoutMs: setting.int('KEYWORD_ENHANCER_TIMEOUT_MS', {
      min: 100,
      max: 60_000,
      default: 5000,
      doc: 'the longest one enhancement by a service may take; past it, or when it fails, the embedded enhancer answers',
    }),
  },
  (values, rules) => {
    if (values.enhancer === 'scigraph') rules.require('scigraphUrl', 'KEYWORD_ENHANCER is scigraph');
    if (values.enhancer === 'skosmos') rules.require('skosmosUrl', 'KEYWORD_ENHANCER is skosmos');
  },
) {
  /** the enhancer these settings choose, with what it needs */
  get enhancerSettings(): KeywordEnhancerSettings {
    const { timeoutMs } = this;
    switch (this.enhancer) {
      case 'embedded':
        return { kind: 'embedded' };
      // the rules have required SCIGRAPH_URL for scigraph, and SKOSMOS_URL for skosmos
      case 'scigraph':
        return { kind: 'scigraph', url: this.scigraphUrl!, timeoutMs };
      case 'ols':
        return { kind: 'ols', url: this.olsUrl, timeoutMs, ontologies: this.olsOntologies };
      case 'skosmos': {
        const { skosmosVocabulary: vocabulary, skosmosLanguage: language } = this;
        return { kind: 'skosmos', url: this.skosmosUrl!, timeoutMs, vocabulary, language };
      }
    }
  }
}
