import { open, type FileHandle } from 'node:fs/promises';

/** A pointer of a synset to another noun synset (WordNet's wndb(5) format). */
export interface Pointer {
  /** WordNet's pointer symbol: `@` hypernym, `@i` instance hypernym, `~` hyponym, `;c` topic domain, ... */
  symbol: string;
  target: number;
  /** the word of this synset the pointer is about (1-based), 0 when it is about the whole synset */
  sourceWord: number;
}

/** One noun synset of `data.noun`. */
export interface Synset {
  offset: number;
  /** WordNet's lexicographer file number: 5 noun.animal, 18 noun.person, 27 noun.substance, ... */
  lexFile: number;
  /** its words as WordNet spells them (`_` between words, capitals kept) */
  words: string[];
  /** pointers to other noun synsets (pointers to verbs and adjectives are left out) */
  pointers: Pointer[];
  /** its definition and examples */
  gloss: string;
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
  async read(offsets: Iterable<number>): Promise<Map<number, Synset>> {
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
  const bar = line.indexOf(' | ');
  const fields = (bar === -1 ? line : line.slice(0, bar)).split(' ');
  if (Number(fields[0]) !== offset) {
    throw new Error(`WordNet data.noun has no synset at offset ${offset}: the index and data files differ`);
  }
  const wordCount = parseInt(fields[3], 16);
  // a word may carry a syntactic marker such as `(p)`; it is not part of the word
  const words = Array.from({ length: wordCount }, (_, i) => fields[4 + 2 * i].replace(/\(\w+\)$/, ''));
  const pointersAt = 4 + 2 * wordCount;
  const pointerCount = Number(fields[pointersAt]);
  const pointers: Pointer[] = [];
  for (let i = 0; i < pointerCount; i++) {
    // each pointer: pointer_symbol synset_offset pos source/target (two hex bytes: source word, target word)
    const [symbol, target, pos, sourceTarget] = fields.slice(pointersAt + 1 + 4 * i, pointersAt + 5 + 4 * i);
    if (pos === 'n') {
      pointers.push({ symbol, target: Number(target), sourceWord: parseInt(sourceTarget.slice(0, 2), 16) });
    }
  }
  return {
    offset,
    lexFile: Number(fields[1]),
    words,
    pointers,
    gloss: bar === -1 ? '' : line.slice(bar + 3).trim(),
  };
}
