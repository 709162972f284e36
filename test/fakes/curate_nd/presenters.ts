import { characterization } from './fits';
import type { FakeObject } from './objects';

/**
 * The JSON CurateND answers, built as ndlib/curate_nd builds it:
 * app/presenters/api/items_search_presenter.rb (searches) and app/presenters/api/show_item_presenter.rb
 * (one object). Shapes checked against answers of the live API captured in ndlib/marble-manifest-pipeline
 * (curate_export/test/*.json).
 */

/** `2018-12-10Z`: dates are stored as xsd:date and come out of the RDF reader with their zone. */
function day(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 10)}Z`;
}

/** Solr date fields (`_dtsi`) as the search results show them. */
function solrTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** One value as one string, several as an array (ShowItemPresenter#merge_subjects); absent when none. */
function oneOrMany(values: string[]): string | string[] | undefined {
  return values.length === 0 ? undefined : values.length === 1 ? values[0] : values;
}

/** Fields the search results add when the query names them (RESULT_DATA of items_search_presenter.rb). */
const RESULT_FIELDS: Record<string, (object: FakeObject) => unknown> = {
  editor: (object) => object.editors,
  depositor: (object) => object.depositor,
  modify_date: (object) => solrTime(object.modified),
  deposit_date: (object) => solrTime(object.submitted),
};

/** SingleItemResult#content: id, title, type and itemUrl, then the fields the query named or sorted by. */
export function searchResult(object: FakeObject, root: string, fields: string[]): Record<string, unknown> {
  const result: Record<string, unknown> = {
    id: object.id,
    title: object.title,
    type: object.dcType ?? object.model,
    itemUrl: `${root}/api/items/${object.id}`,
  };
  for (const field of fields) {
    const value = RESULT_FIELDS[field];
    if (value)
      result[field.replace(/_(\w)/g, (_match, letter: string) => letter.toUpperCase())] = value(object);
  }
  return result;
}

/** rightsMetadata as `access` (ShowItemPresenter#process_access_rights). */
function access(object: FakeObject): Record<string, string[]> {
  const groups = object.visibility === 'private' ? [] : [object.visibility];
  return {
    ...(groups.length > 0 ? { readGroup: groups } : {}),
    ...(object.readers.length > 0 ? { readPerson: object.readers } : {}),
    editPerson: object.editors,
  };
}

/** The fields every object shows: its descriptive metadata, rights and properties. */
function described(object: FakeObject): Record<string, unknown> {
  const fields: Record<string, unknown> = {
    title: object.title,
    subject: oneOrMany(object.subjects),
    description: object.description,
    creator: object.creator,
    dateSubmitted: day(object.submitted),
    modified: day(object.modified),
    type: object.dcType,
    access: access(object),
    depositor: object.depositor,
    owner: object.owner,
    hasModel: object.model,
  };
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
}

/** A generic file's own fields (its content datastream adds `downloadUrl`, `label` and `mimeType`). */
function fileFields(file: FakeObject, root: string): Record<string, unknown> {
  return {
    downloadUrl: `${root}/api/items/download/${file.id}`,
    thumbnailUrl: `${root}/downloads/${file.id}/thumbnail`,
    characterization: characterization(file.content!, file.label!, file.mimeType!, file.characterization!),
    ...described(file),
    label: file.label,
    mimeType: file.mimeType,
    isPartOf: [`${root}/api/items/${file.workId}`],
  };
}

/**
 * `GET items/{id}` (ShowItemPresenter#build_json!): `requestUrl`, `id`, the object's fields, and for a work
 * `containedFiles` (each file with `fileUrl`), for a collection `membersUrl`.
 */
export function showRecord(
  object: FakeObject,
  files: FakeObject[],
  requestUrl: string,
  root: string,
): Record<string, unknown> {
  const own = object.model === 'GenericFile' ? fileFields(object, root) : described(object);
  const relations: Record<string, unknown> = {};
  if (object.model === 'LibraryCollection') relations.membersUrl = `${root}/api/items?part_of=${object.id}`;
  else if (object.model !== 'GenericFile' && object.model !== 'Person')
    relations.containedFiles = files.map((file) => ({
      id: file.id,
      fileUrl: `${root}/api/items/${file.id}`,
      ...fileFields(file, root),
    }));
  return { requestUrl, id: object.id, ...own, ...relations };
}
