import type { StoredDeposition } from './model';

/**
 * The part of Elasticsearch's query-string syntax (https://developers.zenodo.org/#list, `q`) the fake
 * understands: `field:"a phrase"`, `"a phrase"` and bare words, with Zenodo's legacy field names `title` and
 * `keywords` (zenodo/zenodo-rdm, site/zenodo_rdm/queryparser.py maps them to the record's fields). Text is
 * matched word by word, case-insensitively, as an analysed text field is.
 */

const FIELDS = ['title', 'keywords'] as const;
type Field = (typeof FIELDS)[number];

function words(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

function texts(deposition: StoredDeposition, field: Field | null): string[] {
  const metadata = deposition.metadata;
  const strings = (value: unknown): string[] =>
    (Array.isArray(value) ? value : [value]).filter((item): item is string => typeof item === 'string');
  if (field === 'title') return strings(metadata.title);
  if (field === 'keywords') return strings(metadata.keywords);
  const creators = Array.isArray(metadata.creators)
    ? metadata.creators.map((creator: { name?: unknown }) =>
        typeof creator.name === 'string' ? creator.name : '',
      )
    : [];
  return [
    ...strings(metadata.title),
    ...strings(metadata.description),
    ...strings(metadata.keywords),
    ...creators,
  ];
}

/** Whether the words of `phrase` stand one after another in one of the texts. */
function containsPhrase(candidates: string[], phrase: string[]): boolean {
  return candidates.some((text) => {
    const tokens = words(text);
    for (let start = 0; start + phrase.length <= tokens.length; start++) {
      if (phrase.every((word, offset) => tokens[start + offset] === word)) return true;
    }
    return false;
  });
}

/** A predicate for `q`; every bare word must match somewhere (Zenodo's default operator is AND). */
export function matcher(q: string | null): (deposition: StoredDeposition) => boolean {
  if (!q || q.trim() === '') return () => true;
  const quoted = /^(?:(\w+):)?"((?:[^"\\]|\\.)*)"$/.exec(q.trim());
  if (quoted) {
    const field = quoted[1] as Field | undefined;
    if (field !== undefined && !FIELDS.includes(field)) return () => false;
    const phrase = words(quoted[2].replace(/\\(.)/g, '$1'));
    return (deposition) => containsPhrase(texts(deposition, field ?? null), phrase);
  }
  const terms = words(q);
  return (deposition) => terms.every((term) => containsPhrase(texts(deposition, null), [term]));
}

/** The legacy sort options (zenodo-rdm's invenio.cfg, LEGACY_SORT_OPTIONS): `mostrecent` is newest first. */
export const SORTS: Record<string, (a: StoredDeposition, b: StoredDeposition) => number> = {
  mostrecent: (a, b) => b.created.localeCompare(a.created),
  '-mostrecent': (a, b) => a.created.localeCompare(b.created),
  // the fake gives every match the same score, so best match is newest first too
  bestmatch: (a, b) => b.created.localeCompare(a.created),
  '-bestmatch': (a, b) => a.created.localeCompare(b.created),
};
