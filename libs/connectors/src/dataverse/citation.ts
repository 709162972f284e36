import type { MetadataField } from './entities';

/**
 * Fields of the citation metadata block in the form Dataverse takes them
 * (https://guides.dataverse.org/en/latest/api/native-api.html#create-a-dataset-in-a-dataverse-collection, the
 * example dataset-finch1.json; scripts/api/data/metadatablocks/citation.tsv in IQSS/dataverse names them).
 */

/** The controlled vocabulary of `subject` (citation.tsv). */
export const SUBJECTS = [
  'Agricultural Sciences',
  'Arts and Humanities',
  'Astronomy and Astrophysics',
  'Business and Management',
  'Chemistry',
  'Computer and Information Science',
  'Earth and Environmental Sciences',
  'Engineering',
  'Law',
  'Mathematical Sciences',
  'Medicine, Health and Life Sciences',
  'Physics',
  'Social Sciences',
  'Other',
] as const;
export const OTHER_SUBJECT = 'Other';

function primitive(typeName: string, value: string): MetadataField {
  return { typeName, multiple: false, typeClass: 'primitive', value };
}

/** A compound field of one or more entries, each of named primitive subfields. */
function compound(typeName: string, entries: Record<string, string>[]): MetadataField {
  return {
    typeName,
    multiple: true,
    typeClass: 'compound',
    value: entries.map((entry) =>
      Object.fromEntries(Object.entries(entry).map(([name, value]) => [name, primitive(name, value)])),
    ),
  };
}

export function titleField(title: string): MetadataField {
  return primitive('title', title);
}

export function authorField(name: string): MetadataField {
  return compound('author', [{ authorName: name }]);
}

export function contactField(name: string, email: string): MetadataField {
  return compound('datasetContact', [{ datasetContactName: name, datasetContactEmail: email }]);
}

export function descriptionField(text: string): MetadataField {
  return compound('dsDescription', [{ dsDescriptionValue: text }]);
}

export function subjectField(subjects: readonly string[]): MetadataField {
  return { typeName: 'subject', multiple: true, typeClass: 'controlledVocabulary', value: [...subjects] };
}

export function keywordField(keywords: readonly string[]): MetadataField {
  return compound(
    'keyword',
    keywords.map((keyword) => ({ keywordValue: keyword })),
  );
}

/** The subjects of the vocabulary that keywords name (by their words, whatever the case). */
export function subjectsNamedBy(keywords: readonly string[]): string[] {
  const named = new Set(keywords.map((keyword) => keyword.trim().toLowerCase()));
  return SUBJECTS.filter((subject) => subject !== OTHER_SUBJECT && named.has(subject.toLowerCase()));
}
