import { Logger } from '@nestjs/common';
import { HttpKeywordEnhancer, SciGraphVocabulary, type KeywordEnhancer } from '@app/keywords';
import { startFakeSciGraph, type FakeConcept, type FakeSciGraph } from '../support/fake-scigraph';

const CONCEPTS: FakeConcept[] = [
  {
    iri: 'http://purl.obolibrary.org/obo/CL_0000540',
    curie: 'CL:0000540',
    labels: ['neuron'],
    synonyms: ['nerve cell', 'Neurone'],
  },
  {
    iri: 'http://purl.obolibrary.org/obo/UBERON_0000955',
    curie: 'UBERON:0000955',
    labels: ['brain'],
    synonyms: ['encephalon', 'Synganglion', 'suprasegmental structures'],
  },
  {
    iri: 'http://purl.obolibrary.org/obo/UBERON_0001950',
    curie: 'UBERON:0001950',
    labels: ['neocortex'],
    synonyms: ['isocortex', 'cortex'],
  },
  {
    iri: 'http://purl.obolibrary.org/obo/UBERON_0001851',
    curie: 'UBERON:0001851',
    labels: ['cortex'],
    synonyms: ['cortical layer'],
  },
  {
    iri: 'http://purl.obolibrary.org/obo/UBERON_9999999',
    curie: 'UBERON:9999999',
    labels: ['old brain term'],
    synonyms: ['brain'],
    deprecated: true,
  },
  {
    iri: 'http://example.org/odd',
    curie: 'EX:1',
    labels: ['a/b test'],
    synonyms: ['slashed term'],
  },
];

/** stands in for the embedded enhancer, so that a test sees when the fallback answered */
const FALLBACK: KeywordEnhancer = {
  name: 'wordnet',
  enhance: async () => ({ terms: ['fallback term'], enhancer: 'wordnet' }),
};

/** The SciGraph enhancer, answering its terms only. */
function sciGraph(url: string, timeoutMs = 5000) {
  const enhancer = new HttpKeywordEnhancer(new SciGraphVocabulary(), { url, timeoutMs }, FALLBACK);
  return { enhance: async (keywords: string[]) => (await enhancer.enhance(keywords)).terms };
}

describe('SciGraph keyword enhancer', () => {
  let fake: FakeSciGraph;
  let warn: jest.SpyInstance;

  beforeEach(async () => {
    fake = await startFakeSciGraph(CONCEPTS);
    warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
  });

  afterEach(async () => {
    warn.mockRestore();
    await fake.close();
  });

  const enhancer = (timeoutMs = 5000) => sciGraph(fake.url, timeoutMs);

  it('offers the labels and synonyms of the concepts found, without the keyword itself', async () => {
    expect(await enhancer().enhance(['Nerve Cell'])).toEqual(['neuron', 'neurone']);
    expect(fake.requests.map((request) => request.term)).toEqual(['nerve cell']);
    expect(warn).not.toHaveBeenCalled();
  });

  it('takes every concept of the answer in its order, labels before synonyms, a few terms per keyword', async () => {
    // "cortex" matches neocortex (a synonym) first, then cortex (a label)
    expect(await enhancer().enhance(['cortex'])).toEqual(['neocortex', 'isocortex', 'cortical layer']);
    expect(await enhancer().enhance(['brain'])).toEqual([
      'encephalon',
      'suprasegmental structures',
      'synganglion',
    ]);
  });

  it('skips deprecated concepts', async () => {
    expect(await enhancer().enhance(['brain'])).not.toContain('old brain term');
  });

  it('asks SciGraph for a bounded number of concepts per keyword, with the keyword URL-encoded', async () => {
    expect(await enhancer().enhance(['A/B test'])).toEqual(['slashed term']);
    expect(fake.requests[0].term).toBe('a/b test');
    expect(fake.requests[0].query.get('limit')).toBe('10');
  });

  it('joins the terms of several keywords in keyword order, without duplicates or input keywords', async () => {
    expect(await enhancer().enhance(['neuron', 'brain', 'encephalon', 'nerve cell'])).toEqual([
      'neurone',
      'suprasegmental structures',
      'synganglion',
    ]);
  });

  it('treats 404 (SciGraph has no concept for the term) as no terms, not as an outage', async () => {
    expect(await enhancer().enhance(['unheard of', 'neuron'])).toEqual(['nerve cell', 'neurone']);
    expect(await enhancer().enhance(['unheard of'])).toEqual([]);
    expect(warn).not.toHaveBeenCalled();
  });

  it('keeps at most 4 requests in flight, whatever the number of keywords', async () => {
    const slow = await startFakeSciGraph(CONCEPTS, { delayMs: 40 });
    try {
      const keywords = Array.from({ length: 12 }, (_, i) => `keyword ${i}`);
      await sciGraph(slow.url).enhance(['neuron', ...keywords]);
      expect(slow.requests).toHaveLength(13);
      expect(slow.peakConcurrency).toBeGreaterThan(1);
      expect(slow.peakConcurrency).toBeLessThanOrEqual(4);
    } finally {
      await slow.close();
    }
  });

  it.each<[FakeSciGraph['mode'], RegExp]>([
    ['error', /answered HTTP 500/],
    ['garbage', /answered something other than JSON/],
  ])(
    'falls back to the embedded enhancer, logging one warning naming the service, when it answers badly (%s)',
    async (mode, reason) => {
      fake.mode = mode;
      expect(await enhancer().enhance(['neuron', 'brain', 'cortex', 'encephalon', 'isocortex'])).toEqual([
        'fallback term',
      ]);
      expect(warn).toHaveBeenCalledTimes(1);
      expect(warn.mock.calls[0][0]).toContain(fake.url);
      expect(warn.mock.calls[0][0]).toMatch(reason);
    },
  );

  it('falls back within the timeout, and logs one warning, when the service does not answer', async () => {
    fake.mode = 'hang';
    const started = Date.now();
    expect(
      await enhancer(300).enhance(['neuron', 'brain', 'cortex', 'encephalon', 'isocortex', 'neocortex']),
    ).toEqual(['fallback term']);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0][0]).toContain(fake.url);
    expect(warn.mock.calls[0][0]).toContain('did not answer within 300 ms');
  });

  it('falls back and logs one warning when nothing listens at the URL', async () => {
    const url = fake.url;
    await fake.close();
    fake = await startFakeSciGraph([]); // for afterEach
    expect(await sciGraph(url).enhance(['neuron', 'brain'])).toEqual(['fallback term']);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0][0]).toContain(url);
    expect(warn.mock.calls[0][0]).toContain('could not be reached (ECONNREFUSED)');
  });

  it('sends credentials given in the URL as Basic authorization, and never logs them', async () => {
    const withCredentials = fake.url.replace('http://', 'http://reader:s3cret@');
    const authorized = sciGraph(withCredentials);
    expect(await authorized.enhance(['neuron'])).toEqual(['nerve cell', 'neurone']);
    expect(fake.requests[0].authorization).toBe(`Basic ${Buffer.from('reader:s3cret').toString('base64')}`);
    fake.mode = 'error';
    expect(await authorized.enhance(['neuron'])).toEqual(['fallback term']);
    expect(warn.mock.calls[0][0]).toContain(fake.url);
    expect(warn.mock.calls[0][0]).not.toContain('s3cret');
  });

  it('keeps a query of the base URL (e.g. an API key) on every request, and out of the log', async () => {
    fake.mode = 'error';
    await sciGraph(`${fake.url}/?key=abc123`).enhance(['neuron']);
    expect(fake.requests[0].query.get('key')).toBe('abc123');
    expect(fake.requests[0].query.get('limit')).toBe('10');
    expect(warn.mock.calls[0][0]).not.toContain('abc123');
  });

  it('does not call the service for no keywords', async () => {
    expect(await enhancer().enhance(['', ' '])).toEqual([]);
    expect(fake.requests).toHaveLength(0);
  });
});
