import { glossTokens } from './gloss-tokens';
import { isPersonSense, type SenseProfile } from './sense-profiles';

/** The noun senses WordNet has for one keyword of a resource, most frequent first. */
export interface KeywordSenses {
  keyword: string;
  senses: SenseProfile[];
}

/**
 * Weights of the sense choice. Context (what the resource's other keywords and title share with a sense)
 * decides; the priors only break what context leaves open, leaning towards senses of the natural and formal
 * sciences and away from feelings, commerce, people and named individuals. Tuned on the tuning half of
 * bench/keywords (docs/keywords.md).
 */
const WEIGHTS = {
  /** per content word a sense shares with the other keywords and the title themselves */
  direct: 2,
  /** per content word a sense shares with the best-matching sense of another keyword */
  related: 0.25,
  /** what the related evidence of one other keyword can add at most */
  relatedCap: 2,
  /** the most frequent sense, the second, the third; later ones get nothing */
  rank: [1, 0.5, 0.25],
  science: 1,
  natural: 1,
  topic: 0.5,
  disfavoured: 1.5,
  otherTopic: 1.5,
  instance: 2,
  /** a kind of person, where the word also has senses that are not people */
  person: 2.5,
  /** how far the chosen sense must lead the next one */
  margin: 1,
  /** the context a sense of a word with several needs, unless it is a natural thing in a natural resource */
  minContext: 2,
};

interface Scored {
  profile: SenseProfile;
  context: number;
  total: number;
}

/**
 * The sense meant by each keyword, read with the resource's other keywords and title, or undefined where it
 * stays unclear: the word has senses WordNet labels as usage (slang, colloquialism) only, no sense leads by a
 * clear margin, or the resource says something and nothing it says bears on the leading sense (a "python"
 * among "data analysis" and "statistics" is not the snake WordNet knows).
 */
export function chooseSenses(
  keywords: readonly KeywordSenses[],
  titleTokens: ReadonlySet<string>,
): (SenseProfile | undefined)[] {
  const admissible = keywords.map((entry) => entry.senses.filter(isAdmissible));
  const words = keywords.map((entry) => glossTokens(entry.keyword));
  const naturalKeywords = admissible.map((senses) => senses.length > 0 && senses.every((s) => s.natural));
  return keywords.map((entry, i) => {
    const candidates = admissible[i];
    if (candidates.length === 0) return undefined;
    const others = admissible.filter((_, j) => j !== i && admissible[j].length > 0);
    // the keyword's own words match every one of its senses: they are no evidence for any
    const own = new Set(words[i]);
    const contextWords = new Set(
      [...titleTokens, ...words.filter((_, j) => j !== i).flat()].filter((word) => !own.has(word)),
    );
    // the other keywords must bear on a sense; the title's words only add evidence (a title says more than
    // its subject: "Forest Plots")
    const hasContext = others.length > 0 || words.some((w, j) => j !== i && w.length > 0);
    const hasPeopleless = candidates.some((s) => !isPersonSense(s));
    const scored = candidates
      .map((profile) => score(profile, others, contextWords, hasPeopleless))
      .sort((a, b) => b.total - a.total);
    const [best, second] = scored;
    // a word with one sense means it, unless that sense is a kind of person ("git"): the resource must be about people
    if (entry.senses.length === 1 && !isPersonSense(best.profile)) return best.profile;
    // where the context favours neither of two things of the natural sciences ("soil" the material and
    // "soil" the land), the more likely reads well enough
    const undecidedNatural =
      second && best.context === second.context && best.profile.natural && second.profile.natural;
    if (second && !undecidedNatural && best.total - second.total < WEIGHTS.margin) return undefined;
    // a natural thing may share few words with the rest of a resource about natural things: a mouse with a
    // genome ("the DNA sequence of an organism") or a crane with a wetland
    const naturalResource =
      naturalKeywords.some((natural, j) => j !== i && natural) ||
      [...contextWords].some((word) => best.profile.lineage.has(word)) ||
      others.some((senses) => senses.some((other) => overlap(best.profile.lineage, other.tokens) > 0));
    // ... and no other natural reading of the word is favoured more by the context
    const unrivalled = candidates.every(
      (other) =>
        other === best.profile ||
        !other.natural ||
        other.instance ||
        scored.find((x) => x.profile === other)!.context <= best.context,
    );
    const naturalDefault = best.profile.natural && unrivalled && naturalResource;
    if (hasContext && best.context < WEIGHTS.minContext && !naturalDefault) {
      return undefined;
    }
    return best.profile;
  });
}

/** Senses never chosen: labelled with a usage domain as a whole, or a named person (Stephen Crane for crane). */
function isAdmissible(profile: SenseProfile): boolean {
  return !profile.usageLabelled && !(profile.instance && isPersonSense(profile));
}

function score(
  profile: SenseProfile,
  others: readonly SenseProfile[][],
  contextWords: ReadonlySet<string>,
  hasPeopleless: boolean,
): Scored {
  let direct = 0;
  for (const word of contextWords) if (profile.tokens.has(word)) direct++;
  let related = 0;
  for (const senses of others) {
    const shared = Math.max(...senses.map((other) => overlap(profile.tokens, other.tokens)));
    related += Math.min(WEIGHTS.relatedCap, WEIGHTS.related * shared);
  }
  const context = WEIGHTS.direct * direct + related;
  const prior =
    (WEIGHTS.rank[profile.rank - 1] ?? 0) +
    (profile.science ? WEIGHTS.science : 0) +
    (profile.natural ? WEIGHTS.natural : 0) +
    (profile.topic ? WEIGHTS.topic : 0) -
    (profile.disfavoured ? WEIGHTS.disfavoured : 0) -
    (profile.otherTopic ? WEIGHTS.otherTopic : 0) -
    (profile.instance ? WEIGHTS.instance : 0) -
    (isPersonSense(profile) && hasPeopleless ? WEIGHTS.person : 0);
  return { profile, context, total: prior + context };
}

function overlap(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  let shared = 0;
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  for (const token of small) if (large.has(token)) shared++;
  return shared;
}
