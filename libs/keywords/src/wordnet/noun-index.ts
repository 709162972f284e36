import { readFile } from 'node:fs/promises';

const NEWLINE = 0x0a;
const SPACE = 0x20;

/**
 * WordNet's noun index (`index.noun`): lemma → the offsets of its synsets in `data.noun`, most frequent sense
 * first. The file is kept as one buffer (about 5 MB, outside the JS heap) and searched by binary search, as
 * WordNet's own library does: its lines are sorted by lemma in byte order. That costs far less memory than a
 * map of its 118,000 lemmas and needs no start-up parse.
 */
export class NounIndex {
  private constructor(
    private readonly lines: Buffer,
    /** where the lemma lines start, after the licence header (lines starting with two spaces) */
    private readonly firstLine: number,
  ) {}

  static async load(path: string): Promise<NounIndex> {
    const lines = await readFile(path);
    let firstLine = 0;
    while (lines[firstLine] === SPACE) firstLine = lines.indexOf(NEWLINE, firstLine) + 1;
    return new NounIndex(lines, firstLine);
  }

  /** Offsets of the synsets of `lemma` (lower case, words joined by `_`) in sense order; [] when unknown. */
  senses(lemma: string): number[] {
    return this.entry(lemma)?.senses ?? [];
  }

  /**
   * Whether `lemma` occurs in the sense-tagged corpus WordNet's sense order comes from (its `tagsense_cnt` is not
   * 0): a word people write, as against a learned or dated name WordNet lists beside it ("uranology").
   */
  attested(lemma: string): boolean {
    return (this.entry(lemma)?.taggedSenses ?? 0) > 0;
  }

  private entry(lemma: string): { senses: number[]; taggedSenses: number } | undefined {
    const line = this.find(Buffer.from(lemma));
    if (line === undefined) return undefined;
    // lemma pos synset_cnt p_cnt [ptr_symbol...] sense_cnt tagsense_cnt synset_offset...
    const fields = line.trimEnd().split(' ');
    const synsetCount = Number(fields[2]);
    return {
      senses: fields.slice(fields.length - synsetCount).map(Number),
      taggedSenses: Number(fields[fields.length - synsetCount - 1]),
    };
  }

  private find(lemma: Buffer): string | undefined {
    // `low` and `high` always sit at the start of a line (or at the end of the file)
    let low = this.firstLine;
    let high = this.lines.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      const lineStart = middle === 0 ? 0 : this.lines.lastIndexOf(NEWLINE, middle - 1) + 1;
      const lineEnd = this.lines.indexOf(NEWLINE, lineStart);
      const end = lineEnd === -1 ? this.lines.length : lineEnd;
      const keyEnd = this.lines.indexOf(SPACE, lineStart);
      const order = Buffer.compare(this.lines.subarray(lineStart, keyEnd === -1 ? end : keyEnd), lemma);
      if (order === 0) return this.lines.toString('latin1', lineStart, end);
      if (order < 0) low = end + 1;
      else high = lineStart;
    }
    return undefined;
  }
}
