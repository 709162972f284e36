import { citation, titleOf, type Version } from './model';

/**
 * The part of Solr's query syntax that mydata/retrieve's `mydata_search_term` goes through to (DataRetrieverAPI
 * hands it to SearchServiceBean as the query) that the fake understands: `*:*` or nothing (all), a phrase
 * (`"coral reef"`, searched in every field), `field:"phrase"` and `field:(word AND word ...)` in the fields
 * Dataverse indexes for a dataset's citation metadata (SearchFields: `title`, `authorName`, `keywordValue`,
 * `dsDescriptionValue`). Text fields are matched as Solr's text analysis would: lower-cased words, in order
 * for a phrase. Anything else is refused, as a query the fake cannot answer truthfully.
 */

const FIELD_PHRASE = /^(\w+):"((?:[^"\\]|\\.)*)"$/;
const FIELD_WORDS = /^(\w+):\((.*)\)$/;
const PHRASE = /^"((?:[^"\\]|\\.)*)"$/;

function words(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word !== '');
}

function containsPhrase(text: string, phrase: string): boolean {
  const haystack = words(text);
  const needle = words(phrase);
  if (needle.length === 0) return true;
  return haystack.some((_, start) => needle.every((word, index) => haystack[start + index] === word));
}

/** The text of a field of the version's citation block: a value, values, or compound subfields' values. */
function fieldText(version: Version, name: string): string {
  if (name === 'title') return titleOf(version);
  const [parent] = Object.entries(SUBFIELDS).find(([, sub]) => sub === name) ?? [];
  const field = citation(version, parent ?? name);
  const values = Array.isArray(field?.value) ? (field.value as unknown[]) : [field?.value];
  return values
    .map((value) => {
      if (typeof value === 'string') return value;
      const sub = (value as Record<string, { value?: unknown }> | undefined)?.[name];
      return typeof sub?.value === 'string' ? sub.value : '';
    })
    .join(' ');
}

const SUBFIELDS: Record<string, string> = {
  author: 'authorName',
  keyword: 'keywordValue',
  dsDescription: 'dsDescriptionValue',
};
const FIELDS = ['title', 'authorName', 'keywordValue', 'dsDescriptionValue'];

/** Whether a version matches the query; throws for a query the fake does not understand. */
export function matches(version: Version, query: string | null): boolean {
  const term = (query ?? '').trim();
  if (term === '' || term === '*:*' || term === '*') return true;
  const unescape = (text: string) => text.replace(/\\(.)/g, '$1');
  let found = FIELD_PHRASE.exec(term);
  if (found && FIELDS.includes(found[1]))
    return containsPhrase(fieldText(version, found[1]), unescape(found[2]));
  found = FIELD_WORDS.exec(term);
  if (found && FIELDS.includes(found[1])) {
    const text = words(fieldText(version, found[1]));
    return found[2]
      .split(/\s+AND\s+/)
      .map((word) => words(unescape(word)))
      .every((parts) => parts.every((part) => text.includes(part)));
  }
  found = PHRASE.exec(term);
  if (found) return FIELDS.some((field) => containsPhrase(fieldText(version, field), unescape(found[1])));
  throw new Error(`the fake Dataverse does not understand the query ${term}`);
}
