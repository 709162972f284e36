import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WordNetKeywordEnhancer } from '@app/keywords';

const RESEARCH_KEYWORDS = [
  'genomics',
  'climate change',
  'machine learning',
  'ecology',
  'neuroscience',
  'statistics',
  'ocean',
  'protein',
  'software',
  'archive',
];

/** terms at the top of WordNet's hierarchy, which say nothing about a research resource */
const TOO_GENERAL = [
  'entity',
  'physical entity',
  'abstraction',
  'abstract entity',
  'object',
  'physical object',
  'whole',
  'thing',
  'psychological feature',
  'large indefinite quantity',
];

describe('WordNetKeywordEnhancer (embedded)', () => {
  const wordnet = new WordNetKeywordEnhancer();
  /** the embedded enhancer, answering its terms only */
  const enhancer = {
    enhance: async (keywords: string[], title?: string) => (await wordnet.enhance(keywords, { title })).terms,
  };

  // the rows of issue 29: the words of a wrong sense (in bold there) never come back
  it.each<[string[], string[], string[]]>([
    [['soil'], ['dirt'], ['filth', 'grime', 'dirtiness', 'uncleanness', 'territory']],
    [
      ['mouse', 'genome', 'knockout'],
      ['rodent'],
      [
        'shiner',
        'black eye',
        'bruise',
        'ordination',
        'stunner',
        'beauty',
        'woman',
        'adult female',
        'ko',
        'blow',
      ],
    ],
    [['python', 'data analysis'], [], ['boa', 'spirit', 'disembodied spirit', 'snake']],
    [
      ['crane', 'wetland'],
      ['wading bird'],
      ['stephen crane', 'hart crane', 'poet', 'writer', 'lifting device'],
    ],
    [
      ['java', 'software'],
      ['object-oriented programming language', 'software program'],
      ['coffee', 'island', 'beverage'],
    ],
    [
      ['bank', 'river', 'erosion'],
      ['slope', 'stream'],
      ['depository financial institution', 'banking concern'],
    ],
    [['agriculture'], ['farming'], ['factory farm', 'commercial enterprise', 'business', 'agribusiness']],
  ])('reads %j together: keeps the sense meant', async (keywords, good, wrong) => {
    const terms = await enhancer.enhance(keywords);
    expect(terms).toEqual(expect.arrayContaining(good));
    for (const term of wrong) expect(terms).not.toContain(term);
  });

  it('chooses the sense the neighbours and the title speak of', async () => {
    expect(await enhancer.enhance(['mouse'])).toContain('rodent');
    expect(await enhancer.enhance(['mouse', 'software', 'user interface'])).not.toContain('rodent');
    expect(await enhancer.enhance(['bank'], 'Sediment of river banks')).toContain('slope');
  });

  it('never suggests a name of a person, an insult, or a sense it cannot tell', async () => {
    for (const name of ['stephen crane', 'hart crane', 'poet', 'writer']) {
      expect(await enhancer.enhance(['crane'])).not.toContain(name);
    }
    expect(await enhancer.enhance(['git', 'software'])).toEqual(['software program', 'computer software']);
    expect(await enhancer.enhance(['knockout', 'gene'])).toEqual(['cistron', 'sequence']);
  });

  it.each<[string, string[]]>([
    ['genomics', ['genetics']],
    ['climate change', ['global climate change', 'temperature change']],
    ['ecology', ['environmental science', 'biology']],
    ['neuroscience', ['neurobiology']],
    ['statistics', ['applied mathematics']],
    ['ocean', ['body of water']],
    ['protein', ['macromolecule']],
    ['software', ['computer software', 'software program']],
    ['archive', ['depository']],
  ])('finds synonyms and broader terms for %s alone, where its sense is clear', async (keyword, expected) => {
    const terms = await enhancer.enhance([keyword]);
    expect(terms).toEqual(expect.arrayContaining(expected));
    // a few synonyms and a few broader terms, not the whole vocabulary entry
    expect(terms.length).toBeLessThanOrEqual(6);
  });

  it('never offers terms too general to describe a resource', async () => {
    for (const keyword of [...RESEARCH_KEYWORDS, 'soil', 'cell', 'water', 'evolution', 'chemistry']) {
      const terms = await enhancer.enhance([keyword]);
      for (const general of TOO_GENERAL) expect(terms).not.toContain(general);
    }
  });

  it('answers new terms only: none of the input keywords, no duplicates, all normalized', async () => {
    const terms = await enhancer.enhance([...RESEARCH_KEYWORDS, 'biology', 'genetics', 'sea']);
    for (const keyword of [...RESEARCH_KEYWORDS, 'biology', 'genetics', 'sea'])
      expect(terms).not.toContain(keyword);
    expect(new Set(terms).size).toBe(terms.length);
    for (const term of terms) expect(term).toBe(term.trim().toLowerCase());
    expect(terms.some((term) => term.includes('_'))).toBe(false);
  });

  it('reads keywords as users write them: any case and spacing, plurals', async () => {
    expect(await enhancer.enhance(['  Climate   CHANGE '])).toEqual(
      await enhancer.enhance(['climate change']),
    );
    expect(await enhancer.enhance(['Proteins'])).toEqual(['macromolecule']);
    expect(await enhancer.enhance(['oceans'])).toEqual(['body of water']);
  });

  it('keeps a stable order: the terms of each keyword in turn, the same on every call and in a new instance', async () => {
    const both = await enhancer.enhance(['genomics', 'protein']);
    expect(both).toEqual(['genetics', 'macromolecule']);
    const first = await enhancer.enhance(RESEARCH_KEYWORDS);
    expect(await enhancer.enhance(RESEARCH_KEYWORDS)).toEqual(first);
    expect((await new WordNetKeywordEnhancer().enhance(RESEARCH_KEYWORDS)).terms).toEqual(first);
  });

  it('answers concurrent calls alike', async () => {
    const fresh = new WordNetKeywordEnhancer();
    const [a, b] = await Promise.all([fresh.enhance(['ecology']), fresh.enhance(['ecology'])]);
    expect(a).toEqual(b);
    expect(a.terms).toContain('biology');
  });

  it('gives [] for words WordNet does not know, and for no keywords', async () => {
    expect(await enhancer.enhance(['xyzzyplugh'])).toEqual([]);
    expect(await enhancer.enhance(['qwertyuiop frobnicatz'])).toEqual([]);
    expect(await enhancer.enhance(['', '  '])).toEqual([]);
    expect(await enhancer.enhance([])).toEqual([]);
  });

  it('reports data files that do not match the index instead of answering wrong terms', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'wordnet-'));
    try {
      await writeFile(join(dir, 'index.noun'), '  licence header\nocean n 1 1 @ 1 0 00000010  \n');
      await writeFile(join(dir, 'data.noun'), '00000000 17 n 01 sea 0 000 | a body of water\n');
      await expect(new WordNetKeywordEnhancer(dir).enhance(['ocean'])).rejects.toThrow(
        'WordNet data.noun has no synset at offset 10',
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
