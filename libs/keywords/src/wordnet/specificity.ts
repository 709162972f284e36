import type { NounSynsets, Synset } from './noun-synsets';

const HYPONYM = new Set(['~', '~i']);

/**
 * How specific a concept is, measured by how many concepts WordNet files below it (hyponyms, transitively): the
 * fewer, the more a term for it tells a reader (intrinsic information content). "science" has hundreds below it,
 * "applied mathematics" a dozen. Counting stops once `cap` is passed, so a general concept costs at most `cap`
 * reads; counts are kept for the most recently asked `capacity` concepts.
 */
export class Specificity {
  private readonly counts = new Map<number, number>();

  constructor(
    private readonly synsets: NounSynsets,
    private readonly cap: number,
    private readonly capacity: number,
  ) {}

  /** Whether fewer than `cap` concepts lie below `synset`. */
  async isSpecific(synset: Synset): Promise<boolean> {
    return (await this.narrower(synset)) <= this.cap;
  }

  private async narrower(synset: Synset): Promise<number> {
    const known = this.counts.get(synset.offset);
    if (known !== undefined) return known;
    const seen = new Set<number>();
    let level = [synset];
    while (level.length > 0 && seen.size <= this.cap) {
      const below = level
        .flatMap((s) => s.pointers.filter((p) => HYPONYM.has(p.symbol)).map((p) => p.target))
        .filter((offset) => !seen.has(offset));
      for (const offset of below) seen.add(offset);
      level = seen.size <= this.cap ? [...(await this.synsets.read(below)).values()] : [];
    }
    this.counts.set(synset.offset, seen.size);
    if (this.counts.size > this.capacity) this.counts.delete(this.counts.keys().next().value as number);
    return seen.size;
  }
}
