import { firstText } from './entities';

/**
 * What a file's `characterization` tells: the FITS report CurateND keeps of each file (ShowItemPresenter
 * passes it on as a string). Its `<fileinfo>` holds the checksum and size FITS measured, e.g.
 * `<md5checksum toolname="OIS File Information" ...>e5ad...</md5checksum>` and
 * `<size toolname="Jhove">87442</size>`; some reports prefix the elements with a namespace (`<ns0:size>`).
 * A value is trusted only when every tool that reported it agrees.
 */
export interface Characterization {
  md5: string | null;
  size: number | null;
}

const FILEINFO = /<(?:[\w.-]+:)?fileinfo\b[^>]*>([\s\S]*?)<\/(?:[\w.-]+:)?fileinfo\s*>/i;

/** The trimmed text of each `<name ...>text</name>` in `xml`, whatever the element's namespace prefix. */
function elementTexts(xml: string, name: string): string[] {
  const element = new RegExp(`<(?:[\\w.-]+:)?${name}\\b[^>]*>([^<]*)</(?:[\\w.-]+:)?${name}\\s*>`, 'gi');
  return [...xml.matchAll(element)].map((match) => match[1].trim());
}

/** The one value all reports agree on and that has the expected form; null otherwise. */
function agreed(values: string[], form: RegExp): string | null {
  const distinct = new Set(values);
  const [value] = distinct;
  return distinct.size === 1 && form.test(value) ? value : null;
}

export function readCharacterization(value: unknown): Characterization {
  const fileinfo = FILEINFO.exec(firstText(value) ?? '')?.[1] ?? '';
  const md5 = agreed(
    elementTexts(fileinfo, 'md5checksum').map((text) => text.toLowerCase()),
    /^[0-9a-f]{32}$/,
  );
  const size = agreed(elementTexts(fileinfo, 'size'), /^\d{1,15}$/);
  return { md5, size: size === null ? null : Number(size) };
}
