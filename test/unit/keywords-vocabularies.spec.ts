import { Logger } from '@nestjs/common';
import {
  HttpKeywordEnhancer,
  OlsVocabulary,
  SkosmosVocabulary,
  WordNetKeywordEnhancer,
  type VocabularyService,
} from '@app/keywords';
import type { FakeServer } from '../fakes/fake-server';
import { fakeOls, type OlsTerm } from '../fakes/ols/fake-ols';
import { fakeSkosmos, type SkosConcept } from '../fakes/skosmos/fake-skosmos';

const ENVO = 'http://purl.obolibrary.org/obo/ENVO_';
const OLS_TERMS: OlsTerm[] = [
  {
    ontology: 'envo',
    iri: `${ENVO}00001998`,
    label: 'soil',
    synonyms: ['Soil'],
    parents: [`${ENVO}00010483`],
  },
  { ontology: 'envo', iri: `${ENVO}00010483`, label: 'environmental material', parents: [] },
  {
    ontology: 'envo',
    iri: `${ENVO}00000141`,
    label: 'bank',
    synonyms: ['river bank', 'riverbank'],
    description: ['The sloping land alongside a river or stream channel.'],
    parents: [`${ENVO}00000176`],
  },
  { ontology: 'envo', iri: `${ENVO}00000176`, label: 'slope', parents: [] },
  {
    ontology: 'ncit',
    iri: 'http://purl.obolibrary.org/obo/NCIT_C00001',
    label: 'bank',
    synonyms: ['financial institution'],
    description: ['A financial institution that accepts deposits and makes loans.'],
    parents: [],
  },
  { ontology: 'envo', iri: `${ENVO}09999999`, label: 'old soil', synonyms: ['soil'], obsolete: true },
];

const AGROVOC = 'http://aims.fao.org/aos/agrovoc/c_';
const AGROVOC_CONCEPTS: SkosConcept[] = [
  {
    uri: `${AGROVOC}7156`,
    prefLabel: 'soil',
    altLabels: ['soils', 'dirt'],
    broader: [`${AGROVOC}330919`],
    related: [`${AGROVOC}7176`, `${AGROVOC}7161`],
  },
  { uri: `${AGROVOC}330919`, prefLabel: 'natural resources' },
  { uri: `${AGROVOC}7176`, prefLabel: 'soil science' },
  { uri: `${AGROVOC}7161`, prefLabel: 'soil fertility' },
  { uri: `${AGROVOC}2593`, prefLabel: 'erosion', altLabels: ['soil erosion'], broader: [`${AGROVOC}330919`] },
];

describe('vocabulary services behind the keyword enhancer', () => {
  let warn: jest.SpyInstance;
  const embedded = new WordNetKeywordEnhancer();
  const fakes: FakeServer[] = [];
  const start = async (fake: FakeServer) => {
    fakes.push(fake);
    return fake.start();
  };
  const enhancer = (service: VocabularyService, url: string, timeoutMs = 5000) =>
    new HttpKeywordEnhancer(service, { url, timeoutMs }, embedded);

  beforeEach(() => {
    warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
  });

  afterEach(async () => {
    warn.mockRestore();
    for (const fake of fakes.splice(0)) await fake.stop();
  });

  describe('OLS', () => {
    const ols = new OlsVocabulary({ ontologies: ['envo', 'ncit'] });

    it("offers a term's synonyms and its parents' labels, leaving out upper-level classes and the input", async () => {
      const fake = await start(fakeOls(OLS_TERMS));
      expect(await enhancer(ols, fake.url).enhance(['Soil'])).toEqual({
        terms: ['environmental material'],
        enhancer: 'ols',
      });
      const search = new URL(fake.requests[0].url, fake.origin);
      expect(search.pathname).toBe('/ols4/api/search');
      expect(Object.fromEntries(search.searchParams)).toMatchObject({
        q: 'soil',
        ontology: 'envo,ncit',
        queryFields: 'label,synonym',
        exact: 'true',
      });
      // the IRI is double URL-encoded in the path, as OLS requires
      expect(fake.requests[1].url).toBe(
        `/ols4/api/ontologies/envo/terms/${encodeURIComponent(encodeURIComponent(`${ENVO}00001998`))}/parents`,
      );
    });

    it("chooses among terms of the same name by the resource's other keywords", async () => {
      const fake = await start(fakeOls(OLS_TERMS));
      const { terms } = await enhancer(ols, fake.url).enhance(['bank', 'river', 'erosion']);
      expect(terms).toEqual(['river bank', 'riverbank', 'slope']);
      expect(terms).not.toContain('financial institution');
      const money = await enhancer(ols, fake.url).enhance(['bank'], {
        title: 'Deposits and loans by institution',
      });
      expect(money.terms).toEqual(['financial institution']);
    });

    it('gives nothing for a keyword no ontology names', async () => {
      const fake = await start(fakeOls(OLS_TERMS));
      expect(await enhancer(ols, fake.url).enhance(['xyzzy'])).toEqual({ terms: [], enhancer: 'ols' });
      expect(warn).not.toHaveBeenCalled();
    });

    it('falls back to the embedded enhancer when OLS does not answer in time, and says so', async () => {
      const fake = await start(fakeOls(OLS_TERMS));
      // far past the 200 ms allowed, so that only a wait for OLS could take this long, even on a loaded machine
      fake.latencyMs = 6000;
      const expected = await embedded.enhance(['bank', 'river', 'erosion']);
      const started = Date.now();
      const found = await enhancer(ols, fake.url, 200).enhance(['bank', 'river', 'erosion']);
      expect(Date.now() - started).toBeLessThan(4000);
      expect(found).toEqual(expected);
      expect(found.enhancer).toBe('wordnet');
      expect(found.terms).toContain('slope');
      expect(warn).toHaveBeenCalledTimes(1);
      expect(warn.mock.calls[0][0]).toContain('did not answer within 200 ms');
    });

    it('falls back when OLS answers an error or a search of the wrong shape', async () => {
      const fake = await start(fakeOls(OLS_TERMS));
      fake.inject({ kind: 'status', status: 503 });
      expect((await enhancer(ols, fake.url).enhance(['soil'])).enhancer).toBe('wordnet');
      fake.inject({ kind: 'status', status: 200, body: { docs: [] } });
      expect((await enhancer(ols, fake.url).enhance(['soil'])).enhancer).toBe('wordnet');
      expect(warn.mock.calls.map((call) => String(call[0]))).toEqual([
        expect.stringContaining('answered HTTP 503'),
        expect.stringContaining('answered a search without response.docs'),
      ]);
    });
  });

  describe('Skosmos', () => {
    const agrovoc = new SkosmosVocabulary({ vocabulary: 'agrovoc', language: 'en' });

    it("offers a concept's alternative labels, broader and related concepts, in the configured vocabulary and language", async () => {
      const fake = await start(fakeSkosmos('agrovoc', 'en', AGROVOC_CONCEPTS));
      expect(await enhancer(agrovoc, fake.origin + '/browse').enhance(['soil'])).toEqual({
        terms: ['soils', 'dirt', 'natural resources', 'soil science', 'soil fertility'],
        enhancer: 'skosmos',
      });
      const paths = fake.requests.map((request) => new URL(request.url, fake.origin));
      expect(paths.map((url) => url.pathname).sort()).toEqual([
        '/browse/rest/v1/agrovoc/broader',
        '/browse/rest/v1/agrovoc/label',
        '/browse/rest/v1/agrovoc/related',
        '/browse/rest/v1/agrovoc/search',
      ]);
      for (const url of paths) expect(url.searchParams.get('lang')).toBe('en');
    });

    it('finds a concept by an alternative label and offers its preferred label', async () => {
      const fake = await start(fakeSkosmos('agrovoc', 'en', AGROVOC_CONCEPTS));
      const { terms } = await enhancer(agrovoc, fake.origin + '/browse').enhance(['soil erosion']);
      expect(terms).toEqual(['erosion', 'natural resources']);
    });

    it('falls back to the embedded enhancer when the vocabulary is not served there, or too slowly', async () => {
      const fake = await start(fakeSkosmos('gemet', 'en', AGROVOC_CONCEPTS));
      const found = await enhancer(agrovoc, fake.origin + '/browse').enhance(['soil', 'statistics']);
      expect(found).toEqual({ terms: ['applied mathematics'], enhancer: 'wordnet' });
      expect(warn.mock.calls[0][0]).toContain("has no vocabulary 'agrovoc'");
      const served = await start(fakeSkosmos('agrovoc', 'en', AGROVOC_CONCEPTS));
      served.latencyMs = 2000;
      const slow = enhancer(agrovoc, served.origin + '/browse', 200);
      expect(await slow.enhance(['soil', 'statistics'])).toEqual(found);
      expect(warn.mock.calls[1][0]).toContain('did not answer within 200 ms');
    });
  });
});
