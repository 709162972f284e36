import { Test } from '@nestjs/testing';
import { ConfigModule, loadSettings } from '@app/config';
import {
  KEYWORD_ENHANCER,
  KeywordsModule,
  HttpKeywordEnhancer,
  KeywordSettings,
  WordNetKeywordEnhancer,
  type KeywordEnhancer,
} from '@app/keywords';

const keywordSettings = (env: Record<string, string>) => loadSettings([KeywordSettings], env);
const enhancerSettings = (env: Record<string, string>) =>
  keywordSettings(env).get(KeywordSettings).enhancerSettings;

async function configuredEnhancer(env: Record<string, string>): Promise<KeywordEnhancer> {
  const module = await Test.createTestingModule({
    imports: [ConfigModule.forRoot(keywordSettings(env)), KeywordsModule],
  }).compile();
  return module.get<KeywordEnhancer>(KEYWORD_ENHANCER);
}

describe('KeywordsModule', () => {
  it('provides the embedded WordNet enhancer by default', async () => {
    expect(await configuredEnhancer({})).toBeInstanceOf(WordNetKeywordEnhancer);
    expect(await configuredEnhancer({ KEYWORD_ENHANCER: 'embedded' })).toBeInstanceOf(WordNetKeywordEnhancer);
  });

  it.each<[string, Record<string, string>]>([
    ['scigraph', { SCIGRAPH_URL: 'http://127.0.0.1:9/scigraph/' }],
    ['ols', {}],
    ['skosmos', { SKOSMOS_URL: 'http://127.0.0.1:9/browse' }],
  ])('provides the %s enhancer when configured', async (kind, env) => {
    const enhancer = await configuredEnhancer({
      KEYWORD_ENHANCER: kind,
      KEYWORD_ENHANCER_TIMEOUT_MS: '1500',
      ...env,
    });
    expect(enhancer).toBeInstanceOf(HttpKeywordEnhancer);
    expect(enhancer.name).toBe(kind);
  });
});

describe('keyword enhancer settings', () => {
  it('default to the embedded enhancer', () => {
    expect(enhancerSettings({})).toEqual({ kind: 'embedded' });
  });

  it('carry the SciGraph URL (without trailing slash) and the timeout', () => {
    const settings = enhancerSettings({
      KEYWORD_ENHANCER: 'scigraph',
      SCIGRAPH_URL: 'https://scigraph.example.org/scigraph/',
      KEYWORD_ENHANCER_TIMEOUT_MS: '2500',
    });
    expect(settings).toEqual({
      kind: 'scigraph',
      url: 'https://scigraph.example.org/scigraph',
      timeoutMs: 2500,
    });
    expect(
      enhancerSettings({ KEYWORD_ENHANCER: 'scigraph', SCIGRAPH_URL: 'http://localhost:9000' }),
    ).toHaveProperty('timeoutMs', 5000);
  });

  it('carry the OLS URL and ontologies, and the Skosmos vocabulary and language', () => {
    expect(enhancerSettings({ KEYWORD_ENHANCER: 'ols' })).toEqual({
      kind: 'ols',
      url: 'https://www.ebi.ac.uk/ols4',
      timeoutMs: 5000,
      ontologies: ['envo', 'go', 'chebi', 'uberon', 'pato', 'obi'],
    });
    expect(
      enhancerSettings({
        KEYWORD_ENHANCER: 'ols',
        OLS_URL: 'http://ols.local/',
        OLS_ONTOLOGIES: 'ENVO, ncbitaxon',
      }),
    ).toMatchObject({ url: 'http://ols.local', ontologies: ['envo', 'ncbitaxon'] });
    expect(
      enhancerSettings({
        KEYWORD_ENHANCER: 'skosmos',
        SKOSMOS_URL: 'https://agrovoc.fao.org/browse/',
        SKOSMOS_VOCABULARY: 'unescot',
        SKOSMOS_LANGUAGE: 'fr',
      }),
    ).toEqual({
      kind: 'skosmos',
      url: 'https://agrovoc.fao.org/browse',
      timeoutMs: 5000,
      vocabulary: 'unescot',
      language: 'fr',
    });
  });

  it.each<[string, Record<string, string>, string]>([
    [
      'an unknown enhancer',
      { KEYWORD_ENHANCER: 'wordnet' },
      'KEYWORD_ENHANCER must be embedded, scigraph, ols or skosmos',
    ],
    ['skosmos without its URL', { KEYWORD_ENHANCER: 'skosmos' }, 'required when KEYWORD_ENHANCER is skosmos'],
    ['ontologies that are no list of ids', { OLS_ONTOLOGIES: 'envo;go' }, 'OLS_ONTOLOGIES must be'],
    [
      'scigraph without its URL',
      { KEYWORD_ENHANCER: 'scigraph' },
      'SCIGRAPH_URL must be the absolute http(s) URL',
    ],
    [
      'scigraph with an empty URL',
      { KEYWORD_ENHANCER: 'scigraph', SCIGRAPH_URL: ' ' },
      'required when KEYWORD_ENHANCER is scigraph',
    ],
    [
      'a URL that is not one',
      { SCIGRAPH_URL: 'scigraph.example.org' },
      'SCIGRAPH_URL must be the absolute http(s) URL',
    ],
    [
      'a URL of another scheme',
      { KEYWORD_ENHANCER: 'scigraph', SCIGRAPH_URL: 'ftp://example.org' },
      'SCIGRAPH_URL',
    ],
    [
      'a timeout that is not a number',
      { KEYWORD_ENHANCER_TIMEOUT_MS: 'soon' },
      'KEYWORD_ENHANCER_TIMEOUT_MS must be an integer',
    ],
    ['a timeout too short', { KEYWORD_ENHANCER_TIMEOUT_MS: '5' }, 'KEYWORD_ENHANCER_TIMEOUT_MS'],
  ])('are refused at start-up for %s, naming the setting', (_case, env, message) => {
    expect(() => keywordSettings(env)).toThrow(message);
  });
});
