import type { CharacterizationStyle } from './fits';

/**
 * What the fake CurateND holds: Fedora objects as ndlib/curate_nd models them. A work (any curation concern:
 * Dataset, Document, Article, ...) holds generic files; a Person is a user's profile and a LibraryCollection
 * gathers works, and both turn up in searches (items_search_presenter.rb does not filter them out).
 */
export interface FakeObject {
  /** the noid, without the `und:` namespace */
  id: string;
  /** `hasModel`: the object's class */
  model: string;
  /** the Dublin Core type a work was given (the search's `type` falls back to the model) */
  dcType?: string;
  title: string;
  subjects: string[];
  description?: string;
  creator?: string;
  depositor: string;
  owner: string;
  /** user names with edit access (edit_access_person_ssim), and with read access */
  editors: string[];
  readers: string[];
  /** read access for everyone (`public`), for any logged-in user (`registered`), or only the people named */
  visibility: 'public' | 'registered' | 'private';
  /** ms since the epoch: deposited (system_create_dtsi) and last changed (system_modified_dtsi) */
  submitted: number;
  modified: number;
  /** a work's files, in the order they were deposited */
  fileIds: string[];
  /** a file's work, name, bytes and type */
  workId?: string;
  label?: string;
  content?: Buffer;
  mimeType?: string;
  characterization?: CharacterizationStyle;
}

/** hydra-access-controls: who may read an object. */
export function mayRead(object: FakeObject, user: string | null): boolean {
  if (object.visibility === 'public') return true;
  if (user === null) return false;
  return object.visibility === 'registered' || object.editors.includes(user) || object.readers.includes(user);
}

/** Words as Solr's tokenised text fields (`_tesim`) see them. */
export function words(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** Whether `phrase`'s words occur in `text` one after another (a quoted Solr phrase query). */
export function holdsPhrase(text: string, phrase: string): boolean {
  const haystack = words(text);
  const needle = words(phrase);
  if (needle.length === 0) return false;
  return haystack.some((_word, start) => needle.every((word, offset) => haystack[start + offset] === word));
}
