import type { NounIndex } from './noun-index';
import type { Synset } from './noun-synsets';
import { isField, type SenseProfile } from './sense-profiles';
import type { Specificity } from './specificity';

const SYNONYMS_PER_KEYWORD = 1;
const BROADER_TERMS_PER_KEYWORD = 1;
/** how many letters two words must share from their start to be taken for one word's forms ("econom-") */
const SHARED_STEM = 5;

/** What the terms of one keyword are weighed against. */
export interface TermContext {
  index: NounIndex;
  specificity: Specificity;
  /** the resource's keywords, normalized: a term that only respells one adds nothing */
  keywords: readonly string[];
}

/**
 * The terms offered for `keyword` read in `sense`: synonyms a reader recognises as the keyword's own (sharing a
 * word's stem with it, its acronym or expansion, or a word people write: "psychological science", "nlp" for
 * "natural language processing", "dirt" for "soil") and the concept one level up where it is specific enough to
 * describe a resource ("applied mathematics" above "statistics", never "science" above "psychology"). Every term
 * must read in the meant sense when read alone: its most frequent sense is this one ("ordering" is WordNet's
 * hypernym of "genome", but read alone it is the act of ordering). Named individuals get synonyms only: the class
 * of a place ("Asian country" for India) describes no resource.
 */
export async function termsOf(keyword: string, sense: SenseProfile, context: TermContext): Promise<string[]> {
  const synonyms = sense.synset.words
    .filter((_, i) => !sense.labelledWords.has(i + 1))
    .map(term)
    .filter(
      (candidate) =>
        readsAs(candidate, sense.synset, context) &&
        isNew(candidate, keyword, context) &&
        isRecognisable(candidate, keyword, context.index),
    );
  const broader: string[] = [];
  if (!sense.instance && hasNamedKind(sense.synset)) {
    // a field of science is offered under a field ("applied mathematics"), not a method ("technique")
    const parents = sense.broader.filter(
      (parent) =>
        agreesWithGloss(sense.synset, parent) && (!isField(sense) || sense.broaderFields.has(parent.offset)),
    );
    for (const synset of parents) {
      // a broader synset's first word: its others are mostly spelling variants ("programing language")
      const candidate = term(synset.words[0]);
      if (
        readsAs(candidate, synset, context) &&
        isNew(candidate, keyword, context) &&
        (await context.specificity.isSpecific(synset))
      ) {
        broader.push(candidate);
      }
    }
  }
  return [
    ...unique(synonyms).slice(0, SYNONYMS_PER_KEYWORD),
    ...unique(broader).slice(0, BROADER_TERMS_PER_KEYWORD),
  ];
}

/**
 * Lexicographer files of abstract kinds (acts, attributes, feelings, phenomena, processes, relations, states):
 * WordNet files them under umbrella terms ("economic process" above "inflation", "attraction" above "gravity")
 * that name no subject a resource is about.
 */
const ABSTRACT_KINDS = new Set([4, 7, 12, 19, 22, 24, 26]);

/** Whether the concept above `synset` names a kind a resource can be about: a thing, a substance, a field. */
function hasNamedKind(synset: Synset): boolean {
  return !ABSTRACT_KINDS.has(synset.lexFile);
}

/**
 * Whether `parent` agrees with what the gloss of `synset` says it is a branch of. WordNet's definitions of
 * fields say "the branch of geology that studies water"; where the hierarchy puts the field under another
 * ("geophysics"), the two disagree and neither is offered. A gloss that names no parent leaves the hierarchy as
 * it is.
 */
function agreesWithGloss(synset: Synset, parent: Synset): boolean {
  const named = /\bbranch of (?:the )?([a-z ]+?)(?: that| which| concerned| dealing| in which|[;,(]|$)/.exec(
    synset.gloss.toLowerCase(),
  );
  if (!named) return true;
  const parentWords = parent.words.flatMap((word) => wordsOf(term(word)));
  return wordsOf(named[1]).some((word) => parentWords.includes(word));
}

/** A WordNet word as a keyword: lower case, words separated by spaces. */
function term(word: string): string {
  return word.replace(/_/g, ' ').toLowerCase();
}

/** Whether `candidate` read alone means `synset`: that is its most frequent sense. */
function readsAs(candidate: string, synset: Synset, context: TermContext): boolean {
  return context.index.senses(candidate.replace(/ /g, '_'))[0] === synset.offset;
}

/**
 * Whether `candidate` says something the keywords do not: not one of them respelt ("high-energy physics" for
 * "high energy physics", a singular), not the keyword cut short ("energy" for "free energy"), and not a verb's
 * -ing form, which reads as doing rather than as the thing ("deciding" for "decision making").
 */
function isNew(candidate: string, keyword: string, context: TermContext): boolean {
  const squashed = squash(candidate);
  if (context.keywords.some((given) => squash(given) === squashed)) return false;
  if (keyword.endsWith(` ${candidate}`)) return false;
  return !/^[a-z]+ing$/.test(candidate);
}

/** A term without spaces, hyphens and a plural -s, to compare spellings. */
function squash(text: string): string {
  return text.replace(/[\s-]+/g, '').replace(/([^s])s$/, '$1');
}

function isRecognisable(candidate: string, keyword: string, index: NounIndex): boolean {
  return (
    sharesStem(candidate, keyword) ||
    isAcronym(candidate, keyword) ||
    isAcronym(keyword, candidate) ||
    (!candidate.includes(' ') && index.attested(candidate))
  );
}

/** Whether a word of `a` and a word of `b` are the same word or share their first letters. */
function sharesStem(a: string, b: string): boolean {
  const wordsOfB = wordsOf(b);
  const stem = (word: string) => (word.length >= SHARED_STEM ? word.slice(0, SHARED_STEM) : word);
  return wordsOf(a).some((x) => wordsOfB.some((y) => stem(x) === stem(y)));
}

/** The words of a term of three letters or more ("of", "a" say nothing of a term's identity). */
function wordsOf(text: string): string[] {
  return text.split(/[^a-z]+/).filter((word) => word.length >= 3);
}

/** Whether `short` is made of the first letters of the words of `long` ("nlp"). */
function isAcronym(short: string, long: string): boolean {
  const words = long.split(/[\s-]+/);
  return words.length > 1 && !short.includes(' ') && short === words.map((word) => word[0]).join('');
}

function unique(terms: readonly string[]): string[] {
  return [...new Set(terms)];
}
