import { open, type FileHandle } from 'node:fs/promises';

/** One noun synset of `data.noun`: its words (as WordNet spells them, `_` between words) and its hypernyms. */
export interface Synset {
  words: string[];
  /** offsets of the synsets one level up (hypernyms and instance hypernyms) */
  broader: number[];
}

const NEWLINE = 0x0a;
/** 99% of data lines are shorter; a longer one is read again with a larger buffer */
const FIRST_READ_BYTES = 1024;

/**
 * Noun synsets read from `data.noun` by byte offset on demand (the file is 15 MB and never loaded whole), the
 * `capacity` most recently used kept parsed.
 */
export class NounSynsets {
  private readonly recent = new Map<number, Synset>();

  constructor(
    private readonly path: string,
    private readonly capacity: number,
  ) {}

  /** The synsets at `offsets`; the file is opened at most once per call, for those not cached. */
  async read(offsets: readonly number[]): Promise<Map<number, Synset>> {
    const found = new Map<number, Synset>();
    const missing: number[] = [];
    for (const offset of new Set(offsets)) {
      const synset = this.recent.get(offset);
      if (synset) {
        found.set(offset, synset);
        this.remember(offset, synset);
      } else {
        missing.push(offset);
      }
    }
    if (missing.length === 0) return found;
    const file = await open(this.path, 'r');
    try {
      for (const offset of missing) {
        const synset = parseSynset(await readLine(file, offset), offset);
        found.set(offset, synset);
        this.remember(offset, synset);
      }
    } finally {
      await file.close();
    }
    return found;
  }

  private remember(offset: number, synset: Synset): void {
    // a Map iterates in insertion order: re-inserting marks as most recent, the first key is the least recent
    this.recent.delete(offset);
    this.recent.set(offset, synset);
    if (this.recent.size > this.capacity) this.recent.delete(this.recent.keys().next().value as number);
  }
}

async function readLine(file: FileHandle, offset: number): Promise<string> {
  for (let size = FIRST_READ_BYTES; ; size *= 4) {
    const buffer = Buffer.alloc(size);
    const { bytesRead } = await file.read(buffer, 0, size, offset);
    const end = buffer.indexOf(NEWLINE);
    if (end !== -1 || bytesRead < size) return buffer.toString('latin1', 0, end === -1 ? bytesRead : end);
  }
}

/** synset_offset lex_filenum ss_type w_cnt word lex_id [word lex_id...] p_cnt [ptr...] | gloss */
function parseSynset(line: string, offset: number): Synset {
  const fields = line.split(' | ')[0].split(' ');
  if (Number(fields[0]) !== offset) {
    throw new Error(`WordNet data.noun has no synset at offset ${offset}: the index and data files differ`);
  }
  const wordCount = parseInt(fields[3], 16);
  const words = Array.from({ length: wordCount }, (_, i) => fields[4 + 2 * i]);
  const pointersAt = 4 + 2 * wordCount;
  const pointerCount = Number(fields[pointersAt]);
  const broader: number[] = [];
  for (let i = 0; i < pointerCount; i++) {
    // each pointer: pointer_symbol synset_offset pos source/target
    const [symbol, target, pos] = fields.slice(pointersAt + 1 + 4 * i, pointersAt + 4 + 4 * i);
    if ((symbol === '@' || symbol === '@i') && pos === 'n') broader.push(Number(target));
  }
  return { words, broader };
}
