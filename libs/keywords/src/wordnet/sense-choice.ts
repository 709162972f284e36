import { glossTokens } from './gloss-tokens';
import { isField, isPersonSense, type SenseProfile } from './sense-profiles';

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
  /** the context a sense needs to be taken where the resource says something beside the keyword */
  minContext: 2,
};

interface Scored {
  profile: SenseProfile;
  context: number;
  total: number;
}

/**
 * The sense meant by each keyword, read with the resource's other keywords and title, or undefined where it
 * stays unclear. Where the resource says something beside the keyword, a sense is taken on evidence: what the
 * other keywords and the title share with it ("river" for the bank that is a slope), with a clear lead over the
 * next sense. Without such evidence only two readings are safe: a word WordNet knows in one sense, a thing of the
 * sciences ("planetesimal"), and a word naming one field of science that the context does not speak against
 * ("linguistics" the science, not philology). Nothing else is taken on likelihood alone: WordNet lacks many
 * senses research keywords mean ("python" the language, "pandas" the library), and the likeliest sense it has is
 * then a wrong one. A keyword alone is read in its likeliest sense, unless that is a kind of person ("git").
 */
export function chooseSenses(
  keywords: readonly KeywordSenses[],
  titleTokens: ReadonlySet<string>,
): (SenseProfile | undefined)[] {
  const admissible = keywords.map((entry) => entry.senses.filter(isAdmissible));
  const words = keywords.map((entry) => glossTokens(entry.keyword));
  return keywords.map((entry, i) => {
    const candidates = admissible[i];
    if (candidates.length === 0) return undefined;
    const others = admissible.filter((_, j) => j !== i && admissible[j].length > 0);
    // the keyword's own words match every one of its senses: they are no evidence for any
    const own = new Set(words[i]);
    const contextWords = new Set(
      [...titleTokens, ...words.filter((_, j) => j !== i).flat()].filter((word) => !own.has(word)),
    );
    const hasContext = others.length > 0 || words.some((w, j) => j !== i && w.length > 0);
    const hasPeopleless = candidates.some((s) => !isPersonSense(s));
    const scored = candidates
      .map((profile) => score(profile, others, contextWords, hasPeopleless))
      .sort((a, b) => b.total - a.total);
    const [best, second] = scored;
    const leads = !second || best.total - second.total >= WEIGHTS.margin;
    if (leads && best.context >= WEIGHTS.minContext) return best.profile;
    if (!hasContext) {
      // alone, a keyword reads in its likeliest sense, or in the reading the priors favour where the likeliest is
      // one they lean away from (the bank that is a business, "agriculture" the agribusiness)
      const likeliest = candidates[0];
      const leanedAway = likeliest.disfavoured || likeliest.otherTopic || likeliest.instance;
      const readable = best.profile === likeliest || leanedAway;
      if (leads && readable && !isPersonSense(best.profile)) return best.profile;
    }
    // a word WordNet knows in one sense only, a thing of the natural sciences, means it ("planetesimal",
    // "climate change"); one that is not ("twitter", WordNet's chirrup) may mean what WordNet lacks
    if (entry.senses.length === 1 && (best.profile.natural || best.profile.science)) return best.profile;
    // a word that names one field of science ("ecology" the science, beside the ecology of an island) reads as
    // that field unless the context speaks more for another of its senses
    const fields = candidates.filter(isField);
    const field = fields.length === 1 ? fields[0] : isField(candidates[0]) ? candidates[0] : undefined;
    const fieldContext = scored.find((x) => x.profile === field)?.context ?? 0;
    const unopposed = scored.every((x) => x.profile === field || x.context <= fieldContext);
    return field && unopposed ? field : undefined;
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
