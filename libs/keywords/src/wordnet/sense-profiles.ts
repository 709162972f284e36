import { glossTokens } from './gloss-tokens';
import type { NounSynsets, Synset } from './noun-synsets';

/** How far up the hypernym hierarchy a sense's ancestors are collected (WordNet's noun depth is under 20). */
const MAX_ANCESTOR_DEPTH = 16;
/** Ancestors whose words join a sense's profile: higher ones are shared by too many senses to tell them apart. */
const ANCESTORS_IN_PROFILE = 3;
/** Narrower senses whose words join a sense's profile: enough to show what it covers, bounded for speed. */
const HYPONYMS_IN_PROFILE = 12;

/** Lexicographer files of the natural sciences' things: animals, plants, body parts, substances, ... */
const NATURAL_FILES = new Set([5, 8, 17, 19, 20, 22, 27]);
const PERSON_FILE = 18;
/** noun.cognition: knowledge, and the fields of study in it */
const COGNITION_FILE = 9;
/** feelings, foods and possessions (money): rarely what a research keyword means when it has other senses */
const DISFAVOURED_FILES = new Set([12, 13, 21]);

/** Words of the synsets that stand for science as a whole; a topic below one of them is a science. */
const SCIENCE_ROOTS = new Set(['science', 'engineering', 'mathematics', 'medicine', 'medical_science']);
/** Ancestors that mark a sense as commerce or finance rather than research. */
const COMMERCE_ROOTS = new Set(['commercial_enterprise', 'financial_institution', 'business']);

const HYPERNYM = new Set(['@', '@i']);
const HYPONYM = new Set(['~', '~i']);
const PART_WHOLE = new Set(['#m', '#s', '#p', '%m', '%s', '%p']);

/** What the sense choice knows of one noun sense. */
export interface SenseProfile {
  synset: Synset;
  /** 1 for the most frequent sense of the keyword, 2 for the next, ... */
  rank: number;
  /** content words of the sense, its gloss, its neighbours and near ancestors (see glossTokens) */
  tokens: Set<string>;
  /** content words of all its ancestors ("rodent", "mammal", "animal", "organism" for a mouse) */
  lineage: Set<string>;
  /** the sense is a thing of the natural sciences (an animal, a plant, a substance, a process, ...) */
  natural: boolean;
  /** its topic domain (or an ancestor's, or the sense itself) is a science */
  science: boolean;
  /** its topic domain is something other than a science (sport, law, cooking, ...) */
  otherTopic: boolean;
  /** a feeling, food, possession, commerce, or a person where other senses are things */
  disfavoured: boolean;
  /** a named individual (instance hypernym), such as a person, a place or a mythical being */
  instance: boolean;
  /** WordNet labels the whole sense with a usage domain (slang, colloquialism, figure of speech, ...) */
  usageLabelled: boolean;
  /** a topic others belong to (WordNet's member-of-domain pointers): a field of study or activity */
  topic: boolean;
  /** word numbers (1-based) of the synset that WordNet labels with a usage domain */
  labelledWords: Set<number>;
  /** the synsets one level up */
  broader: Synset[];
  /** those of `broader` that are fields of science themselves */
  broaderFields: ReadonlySet<number>;
}

/**
 * Builds the profiles of noun senses from `data.noun`: each sense with its ancestors, topic domains, parts,
 * wholes and some narrower senses, read level by level so that each level is one batch of reads.
 */
export class SenseProfiles {
  constructor(private readonly synsets: NounSynsets) {}

  async profiles(offsets: readonly number[]): Promise<SenseProfile[]> {
    const senses = await this.synsets.read(offsets);
    const ancestors = await this.ancestors([...senses.values()]);
    const neighbourOffsets = new Set<number>();
    for (const synset of [...senses.values(), ...ancestors.values()]) {
      for (const pointer of synset.pointers) {
        if (pointer.symbol === ';c') neighbourOffsets.add(pointer.target);
      }
    }
    for (const synset of senses.values()) {
      const hyponyms = synset.pointers.filter((p) => HYPONYM.has(p.symbol)).slice(0, HYPONYMS_IN_PROFILE);
      for (const pointer of [...hyponyms, ...synset.pointers.filter((p) => PART_WHOLE.has(p.symbol))]) {
        neighbourOffsets.add(pointer.target);
      }
    }
    const neighbours = await this.synsets.read(neighbourOffsets);
    const domainAncestors = await this.ancestors(
      [...neighbourOffsets].map((offset) => neighbours.get(offset)!).filter(Boolean),
    );
    const all = new Map([...senses, ...ancestors, ...neighbours, ...domainAncestors]);
    return offsets.map((offset, index) => profile(senses.get(offset)!, index + 1, all));
  }

  /** Every synset above `synsets` (hypernyms and instance hypernyms, transitively), by offset. */
  private async ancestors(synsets: readonly Synset[]): Promise<Map<number, Synset>> {
    const found = new Map<number, Synset>();
    let level = synsets;
    for (let depth = 0; depth < MAX_ANCESTOR_DEPTH && level.length > 0; depth++) {
      const next = level.flatMap((synset) => upward(synset)).filter((offset) => !found.has(offset));
      const read = await this.synsets.read(next);
      for (const [offset, synset] of read) found.set(offset, synset);
      level = [...read.values()];
    }
    return found;
  }
}

function upward(synset: Synset): number[] {
  return synset.pointers.filter((p) => HYPERNYM.has(p.symbol)).map((p) => p.target);
}

function profile(synset: Synset, rank: number, all: ReadonlyMap<number, Synset>): SenseProfile {
  const at = (offset: number) => all.get(offset);
  const ancestors = ancestorsOf(synset, all);
  const nearAncestors = ancestorsOf(synset, all, ANCESTORS_IN_PROFILE);
  const broader = upward(synset)
    .map(at)
    .filter((s): s is Synset => s !== undefined);
  // a topic domain is inherited from near ancestors only: far up, domains belong to whole branches
  const domains = [synset, ...nearAncestors].flatMap((s) =>
    s.pointers.filter((p) => p.symbol === ';c').map((p) => at(p.target)),
  );
  const topicDomains = domains.filter((s): s is Synset => s !== undefined);
  const isScience = (s: Synset) =>
    [s, ...ancestorsOf(s, all)].some((a) => a.words.some((w) => SCIENCE_ROOTS.has(w)));
  const science = isScience(synset) || topicDomains.some(isScience);
  // WordNet also files things under natural things as topics (a body of water under "river"): not another topic
  const otherTopic = !science && topicDomains.some((d) => !NATURAL_FILES.has(d.lexFile) && !isScience(d));
  const instance = synset.pointers.some((p) => p.symbol === '@i');
  const commerce = ancestorsOf(synset, all, 2).some((a) => a.words.some((w) => COMMERCE_ROOTS.has(w)));
  const usage = synset.pointers.filter((p) => p.symbol === ';u');
  const neighbours = synset.pointers
    .filter((p) => PART_WHOLE.has(p.symbol) || HYPONYM.has(p.symbol) || p.symbol === ';c')
    .map((p) => at(p.target))
    .filter((s): s is Synset => s !== undefined);
  const text = [
    ...synset.words,
    synset.gloss,
    ...broader.map((s) => s.gloss),
    ...[...nearAncestors, ...neighbours].flatMap((s) => s.words),
    ...topicDomains.map((s) => s.gloss),
  ].join(' ');
  return {
    synset,
    rank,
    tokens: new Set(glossTokens(text.replace(/_/g, ' '))),
    lineage: new Set(
      glossTokens(
        ancestors
          .flatMap((a) => a.words)
          .join(' ')
          .replace(/_/g, ' '),
      ),
    ),
    natural: NATURAL_FILES.has(synset.lexFile),
    science,
    otherTopic,
    disfavoured: DISFAVOURED_FILES.has(synset.lexFile) || commerce,
    instance,
    usageLabelled: usage.some((p) => p.sourceWord === 0),
    topic: synset.pointers.some((p) => p.symbol.startsWith('-')),
    labelledWords: new Set(usage.map((p) => p.sourceWord).filter((word) => word > 0)),
    broader,
    broaderFields: new Set(broader.filter(isScience).map((s) => s.offset)),
  };
}

/** The synsets above `synset`, up to `levels` levels up. */
function ancestorsOf(
  synset: Synset,
  all: ReadonlyMap<number, Synset>,
  levels = MAX_ANCESTOR_DEPTH,
): Synset[] {
  const seen = new Map<number, Synset>();
  let level = [synset];
  for (let depth = 0; depth < levels && level.length > 0; depth++) {
    level = level
      .flatMap(upward)
      .filter((offset) => !seen.has(offset))
      .map((offset) => all.get(offset))
      .filter((s): s is Synset => s !== undefined);
    for (const s of level) seen.set(s.offset, s);
  }
  return [...seen.values()];
}

/** Whether the sense is a field of study in science (noun.cognition below a science): "hydrology", "statistics". */
export function isField(profile: SenseProfile): boolean {
  return profile.science && profile.synset.lexFile === COGNITION_FILE;
}

/** Whether the sense is a person's kind (noun.person), for the rule on people's names. */
export function isPersonSense(profile: SenseProfile): boolean {
  return profile.synset.lexFile === PERSON_FILE;
}
