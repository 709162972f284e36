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

/** terms too general to describe a research resource: the top of WordNet's hierarchy and broad fields */
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
  'science',
  'scientific discipline',
  'natural science',
  'discipline',
  'physical phenomenon',
  'process',
  'activity',
];

describe('WordNetKeywordEnhancer (embedded)', () => {
  const wordnet = new WordNetKeywordEnhancer();
  /** the embedded enhancer, answering its terms only */
  const enhancer = {
    enhance: async (keywords: string[], title?: string) => (await wordnet.enhance(keywords, { title })).terms,
  };

  // the rows of issue 29: the words of a wrong sense (in bold there) never come back; where the sense is clear,
  // a term of that sense does; where it is not, nothing does
  it.each<[string[], string[], string[]]>([
    [['soil'], [], ['filth', 'grime', 'dirtiness', 'uncleanness', 'territory']],
    [
      ['mouse', 'genome', 'knockout'],
      [],
      [
        'shiner',
        'black eye',
        'bruise',
        'ordination',
        'ordering',
        'stunner',
        'beauty',
        'woman',
        'adult female',
      ],
    ],
    [['python', 'data analysis'], [], ['boa', 'spirit', 'disembodied spirit', 'snake']],
    [['crane', 'wetland'], [], ['stephen crane', 'hart crane', 'poet', 'writer', 'lifting device']],
    [
      ['java', 'software'],
      ['object-oriented programming language', 'software program'],
      ['coffee', 'island', 'beverage'],
    ],
    [['bank', 'river', 'erosion'], ['slope'], ['depository financial institution', 'banking concern']],
    [['agriculture'], ['husbandry'], ['factory farm', 'commercial enterprise', 'business', 'agribusiness']],
  ])('reads %j together: the sense meant or nothing', async (keywords, expected, wrong) => {
    const terms = await enhancer.enhance(keywords);
    expect(terms).toEqual(expected);
    for (const term of wrong) expect(terms).not.toContain(term);
  });

  it('chooses the sense the neighbours and the title speak of', async () => {
    expect(await enhancer.enhance(['mouse'])).toEqual(['rodent']);
    expect(await enhancer.enhance(['mouse', 'software', 'user interface'])).not.toContain('rodent');
    expect(await enhancer.enhance(['bank'], 'Sediment of river banks')).toEqual(['slope']);
    expect(await enhancer.enhance(['bank'], 'Deposits and loans by institution')).toEqual([
      'financial institution',
    ]);
  });

  it('never suggests a name of a person, an insult, or a sense it cannot tell', async () => {
    const crane = await enhancer.enhance(['crane']);
    for (const name of ['stephen crane', 'hart crane', 'poet', 'writer']) expect(crane).not.toContain(name);
    expect(crane).toEqual(['wading bird']);
    expect(await enhancer.enhance(['git'])).toEqual([]);
    expect(await enhancer.enhance(['git', 'software'])).toEqual(['software program']);
  });

  it('gives nothing for research keywords WordNet knows only in another sense', async () => {
    // Python and pandas are not the snake and the bear here, R and C not the letters, Twitter not a chirrup
    expect(await enhancer.enhance(['python', 'pandas', 'bioinformatics', 'genomics'])).toEqual(['genetics']);
    expect(await enhancer.enhance(['R', 'C', 'twitter', 'blender', 'statistics'])).toEqual([
      'applied mathematics',
    ]);
  });

  it.each<[string, string[]]>([
    ['psychology', ['psychological science']],
    ['statistics', ['applied mathematics']],
    ['economics', ['economic science', 'social science']],
    ['ecology', ['biology']],
    ['neuroscience', ['neurobiology']],
    ['genomics', ['genetics']],
    ['natural language processing', ['nlp', 'information science']],
    ['climate change', ['global climate change']],
    ['software', ['software program']],
    ['archive', ['depository']],
    ['planetesimal', ['celestial body']],
  ])('offers %s alone a synonym a reader recognises and the concept above it', async (keyword, expected) => {
    expect(await enhancer.enhance([keyword])).toEqual(expected);
  });

  it('leaves out what would not read in the meant sense or says too little', async () => {
    // "uranology" and "natural philosophy" are WordNet's synonyms of astronomy and physics, but no reader's
    expect(await enhancer.enhance(['physics'])).toEqual([]);
    expect(await enhancer.enhance(['astronomy'])).not.toContain('uranology');
    // WordNet defines hydrology as "the branch of geology ..." but files it under geophysics: neither is offered
    expect(await enhancer.enhance(['hydrology'])).toEqual([]);
    // the kind an abstract process is filed under names no subject ("economic process" above "inflation")
    expect(await enhancer.enhance(['inflation', 'economics'])).not.toContain('economic process');
    // the keyword respelt or cut short is not a new term
    expect(await enhancer.enhance(['high energy physics'])).not.toContain('high-energy physics');
    expect(await enhancer.enhance(['free energy'])).not.toContain('energy');
  });

  it('never offers terms too general to describe a resource', async () => {
    for (const keyword of [
      ...RESEARCH_KEYWORDS,
      'soil',
      'cell',
      'water',
      'evolution',
      'chemistry',
      'psychology',
      'linguistics',
      'physics',
      'behavior',
    ]) {
      const terms = await enhancer.enhance([keyword]);
      for (const general of TOO_GENERAL)
        expect({ keyword, terms }).not.toEqual({ keyword, terms: expect.arrayContaining([general]) });
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
    // the singular is the keyword itself, not a new term
    expect(await enhancer.enhance(['Enzymes'])).toEqual(['protein']);
    expect(await enhancer.enhance(['enzyme'])).toEqual(['protein']);
  });

  it('keeps a stable order: the terms of each keyword in turn, the same on every call and in a new instance', async () => {
    expect(await enhancer.enhance(['genomics', 'statistics'])).toEqual(['genetics', 'applied mathematics']);
    const first = await enhancer.enhance(RESEARCH_KEYWORDS);
    expect(await enhancer.enhance(RESEARCH_KEYWORDS)).toEqual(first);
    expect((await new WordNetKeywordEnhancer().enhance(RESEARCH_KEYWORDS)).terms).toEqual(first);
  });

  it('answers concurrent calls alike', async () => {
    const fresh = new WordNetKeywordEnhancer();
    const [a, b] = await Promise.all([fresh.enhance(['ecology']), fresh.enhance(['ecology'])]);
    expect(a).toEqual(b);
    expect(a.terms).toEqual(['biology']);
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
