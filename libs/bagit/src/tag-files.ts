import { unsafePathReason } from '@app/archive';

/** Checksum algorithms a bag's manifests may use here, by their BagIt names (also node:crypto's). */
export const SUPPORTED_ALGORITHMS: readonly string[] = [
  'md5',
  'sha1',
  'sha224',
  'sha256',
  'sha384',
  'sha512',
];

/** RFC 8493 §2.1.3: in manifest and fetch.txt paths, only LF, CR and '%' are percent-encoded. */
export function decodeManifestPath(path: string): string {
  return path.replace(/%(0A|0D|25)/gi, (escape) => String.fromCharCode(parseInt(escape.slice(1), 16)));
}

/**
 * Encodes LF and CR, and a '%' only where it would otherwise read as one of the three escapes. bagit-python,
 * the most used validator, decodes %0A and %0D but not %25: encoding every '%' would break a name like
 * "50% done.csv" for it, while this form reads the same for it and for RFC 8493 readers.
 */
export function encodeManifestPath(path: string): string {
  return path
    .replace(/%(?=0A|0D|25)/gi, '%25')
    .replace(/\n/g, '%0A')
    .replace(/\r/g, '%0D');
}

/** How to turn a tag file's bytes into text for a Tag-File-Character-Encoding; null when it is unknown. */
export function tagFileDecoder(encoding: string): ((bytes: Buffer) => string) | null {
  const label = encoding.trim().toLowerCase();
  // WHATWG's TextDecoder would read ISO-8859-1 as windows-1252, which differs in 0x80-0x9F.
  if (/^(iso-?8859-1|latin-?1)$/.test(label)) return (bytes) => bytes.toString('latin1');
  if (label === 'utf-16') {
    // RFC 2781: the byte-order mark tells the order; without one, big-endian.
    return (bytes) =>
      new TextDecoder(bytes[0] === 0xff && bytes[1] === 0xfe ? 'utf-16le' : 'utf-16be', {
        fatal: true,
      }).decode(bytes);
  }
  try {
    const decoder = new TextDecoder(label, { fatal: true });
    return (bytes) => decoder.decode(bytes);
  } catch {
    return null;
  }
}

function lines(text: string): string[] {
  return text.split(/\r\n|\r|\n/);
}

export interface TagField {
  label: string;
  value: string;
}

/** `Label: value` lines (bagit.txt, bag-info.txt); a line starting with whitespace continues the value above. */
export function parseTagFields(text: string, fileName: string, errors: string[]): TagField[] {
  const fields: TagField[] = [];
  lines(text).forEach((line, index) => {
    if (line.trim() === '') return;
    const previous = fields.at(-1);
    if (/^[ \t]/.test(line) && previous) {
      previous.value = `${previous.value} ${line.trim()}`.trim();
      return;
    }
    const colon = line.indexOf(':');
    if (colon <= 0) {
      errors.push(`${fileName} line ${index + 1} is not a "Label: value" line: ${JSON.stringify(line)}`);
      return;
    }
    fields.push({ label: line.slice(0, colon).trim(), value: line.slice(colon + 1).trim() });
  });
  return fields;
}

export interface Problems {
  errors: string[];
  warnings: string[];
}

/**
 * Harmless departures from BagIt's syntax, counted while a manifest or fetch.txt is parsed and reported once
 * for the file (a bag made with md5sum would otherwise give one warning per file).
 */
class Quirks {
  private dotSlash = 0;
  private binaryMark = 0;

  /** Drops md5sum's binary-mode '*' before a name. */
  withoutBinaryMark(raw: string): string {
    if (!raw.startsWith('*')) return raw;
    this.binaryMark += 1;
    return raw.slice(1);
  }

  withoutDotSlash(path: string): string {
    if (!path.startsWith('./')) return path;
    this.dotSlash += 1;
    return path.slice(2);
  }

  report(fileName: string, warnings: string[]): void {
    if (this.dotSlash > 0)
      warnings.push(
        `${fileName} writes ${paths(this.dotSlash)} with a leading './', which BagIt does not use`,
      );
    if (this.binaryMark > 0)
      warnings.push(
        `${fileName} marks ${paths(this.binaryMark)} with md5sum's binary-mode '*', which BagIt does not use`,
      );
  }
}

function paths(count: number): string {
  return count === 1 ? '1 path' : `${count} paths`;
}

/**
 * A path listed in a manifest or fetch.txt, decoded and checked; null (with an error) when it is unusable.
 * Payload paths must lie under data/.
 */
function listedPath(
  raw: string,
  where: string,
  payload: boolean,
  problems: Problems,
  quirks: Quirks,
): string | null {
  const path = quirks.withoutDotSlash(decodeManifestPath(raw));
  const unsafe = unsafePathReason(path);
  if (unsafe) {
    problems.errors.push(`${where} lists ${JSON.stringify(raw)}, which ${unsafe}`);
    return null;
  }
  if (payload && !path.startsWith('data/')) {
    problems.errors.push(
      `${where} lists ${JSON.stringify(raw)}, which is outside data/ (only payload files belong there)`,
    );
    return null;
  }
  return path;
}

export interface ManifestEntry {
  path: string;
  checksum: string;
}

/**
 * The entries of a manifest, keyed by their NFC form so that a name written in another Unicode normalization
 * than the file system's still matches (as bagit-python does).
 */
export function parseManifest(
  text: string,
  fileName: string,
  payload: boolean,
  problems: Problems,
): Map<string, ManifestEntry> {
  const entries = new Map<string, ManifestEntry>();
  const quirks = new Quirks();
  lines(text).forEach((line, index) => {
    if (line.trim() === '') return;
    const where = `${fileName} line ${index + 1}`;
    const match = /^([0-9a-fA-F]+)[ \t]+(.+)$/.exec(line);
    if (!match) {
      problems.errors.push(`${where} is not "<checksum> <path>": ${JSON.stringify(line)}`);
      return;
    }
    const path = listedPath(quirks.withoutBinaryMark(match[2]), where, payload, problems, quirks);
    if (path === null) return;
    const checksum = match[1].toLowerCase();
    const key = path.normalize('NFC');
    const earlier = entries.get(key);
    if (!earlier) entries.set(key, { path, checksum });
    else if (earlier.checksum === checksum)
      problems.warnings.push(`${fileName} lists ${path} more than once`);
    else problems.errors.push(`${fileName} lists ${path} more than once, with different checksums`);
  });
  quirks.report(fileName, problems.warnings);
  return entries;
}

export interface FetchItem {
  url: string;
  /** null where fetch.txt gives '-' */
  length: number | null;
  /** relative to the bag's root, as for manifests */
  path: string;
}

/** fetch.txt: `URL LENGTH PATH` lines naming payload files to be fetched into a "holey" bag. */
export function parseFetch(text: string, problems: Problems): FetchItem[] {
  const items: FetchItem[] = [];
  const quirks = new Quirks();
  lines(text).forEach((line, index) => {
    if (line.trim() === '') return;
    const where = `fetch.txt line ${index + 1}`;
    const match = /^(\S+)[ \t]+(\d+|-)[ \t]+(.+)$/.exec(line);
    if (!match || !URL.canParse(match[1])) {
      problems.errors.push(`${where} is not "<url> <length or -> <path>": ${JSON.stringify(line)}`);
      return;
    }
    const path = listedPath(match[3], where, true, problems, quirks);
    if (path !== null)
      items.push({ url: match[1], length: match[2] === '-' ? null : Number(match[2]), path });
  });
  quirks.report('fetch.txt', problems.warnings);
  return items;
}
