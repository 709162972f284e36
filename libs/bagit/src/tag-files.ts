import { unsafePathReason } from '@app/archive';

/** How many hex digits a checksum has, for each algorithm a bag's manifests may use here (BagIt's names). */
const HEX_DIGITS: Readonly<Record<string, number>> = {
  md5: 32,
  sha1: 40,
  sha224: 56,
  sha256: 64,
  sha384: 96,
  sha512: 128,
};

/** Checksum algorithms a bag's manifests may use here, by their BagIt names (also node:crypto's). */
export const SUPPORTED_ALGORITHMS: readonly string[] = Object.keys(HEX_DIGITS);

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

/** A tag file's lines, each ended by LF, CR or CRLF (RFC 8493 §2); the last one may lack its ending. */
function fileLines(text: string): string[] {
  const found = lines(text);
  if (found.at(-1) === '') found.pop();
  return found;
}

/** RFC 8493 §2.1.1: bagit.txt is exactly these two lines, in this order. */
const BAGIT_TXT_LINES = [
  { form: 'BagIt-Version: M.N', pattern: /^BagIt-Version: \d+\.\d+$/ },
  { form: 'Tag-File-Character-Encoding: ENCODING', pattern: /^Tag-File-Character-Encoding: \S+$/ },
];

/** Reports each way bagit.txt departs from its two lines in their declared form, naming the line. */
export function checkBagitTxtForm(text: string, errors: string[]): void {
  const found = fileLines(text);
  BAGIT_TXT_LINES.forEach(({ form, pattern }, index) => {
    const line = found[index];
    if (line === undefined)
      errors.push(
        `bagit.txt has no line ${index + 1}: it must be exactly ${BAGIT_TXT_LINES.map((expected) => `"${expected.form}"`).join(' and ')}`,
      );
    else if (!pattern.test(line))
      errors.push(`bagit.txt line ${index + 1} is not "${form}": ${JSON.stringify(line)}`);
  });
  found
    .slice(BAGIT_TXT_LINES.length)
    .forEach((line, index) =>
      errors.push(
        `bagit.txt line ${BAGIT_TXT_LINES.length + index + 1} is one line too many: ${JSON.stringify(line)}`,
      ),
    );
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

/** A manifest or tag manifest file, as its name declares it. */
export interface ManifestFile {
  fileName: string;
  algorithm: string;
  /** a payload manifest, whose paths lie under data/ */
  payload: boolean;
  /** a file listed twice with the same checksum is an error (BagIt 1.0), not just a warning (0.97) */
  listsEachFileOnce: boolean;
}

/**
 * The entries of a manifest, keyed by their NFC form so that a name written in another Unicode normalization
 * than the file system's still matches (as bagit-python does). Each line is `<checksum> <path>` with one or
 * more blanks between and a checksum of the algorithm's length in hex (RFC 8493 §2.1.3).
 */
export function parseManifest(
  text: string,
  manifest: ManifestFile,
  problems: Problems,
): Map<string, ManifestEntry> {
  const { fileName, algorithm, payload, listsEachFileOnce } = manifest;
  const entries = new Map<string, ManifestEntry>();
  const quirks = new Quirks();
  const digits = HEX_DIGITS[algorithm];
  const form = new RegExp(`^([0-9a-fA-F]{${digits}})[ \\t]+(\\S.*)$`);
  fileLines(text).forEach((line, index) => {
    const where = `${fileName} line ${index + 1}`;
    const match = form.exec(line);
    if (!match) {
      problems.errors.push(
        `${where} is not "<checksum> <path>" with a checksum of ${digits} hex digits: ${JSON.stringify(line)}`,
      );
      return;
    }
    const path = listedPath(quirks.withoutBinaryMark(match[2]), where, payload, problems, quirks);
    if (path === null) return;
    const checksum = match[1].toLowerCase();
    const key = path.normalize('NFC');
    const earlier = entries.get(key);
    if (!earlier) entries.set(key, { path, checksum });
    else if (earlier.checksum !== checksum)
      problems.errors.push(`${fileName} lists ${path} more than once, with different checksums`);
    else if (listsEachFileOnce)
      problems.errors.push(`${where} lists ${path} again: a manifest lists each file once`);
    else problems.warnings.push(`${fileName} lists ${path} more than once`);
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
