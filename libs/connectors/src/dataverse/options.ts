import { checkOptions } from '../option-rules';

export interface DataverseOptions {
  /** the installation's native API base, e.g. `https://dataverse.harvard.edu/api/` or `https://demo.borealisdata.ca/api/` */
  api_url?: string;
  /** the alias of the collection (a "dataverse") where uploads and transfers make new datasets */
  collection?: string;
  per_page?: number;
}

export const DEFAULT_API_URL = 'https://dataverse.harvard.edu/api/';
/** Out of the box the top collection's alias (https://guides.dataverse.org/en/latest/api/native-api.html#create-a-dataset-in-a-dataverse-collection). */
export const DEFAULT_COLLECTION = 'root';
export const MAX_PAGE_SIZE = 100;
/**
 * A collection's alias (letters, digits, `_` and `-`: Dataverse's validation, `@Pattern(regexp =
 * "[a-zA-Z0-9\\_\\-]*")` on Dataverse.alias in IQSS/dataverse's src/main/java/edu/harvard/iq/dataverse/Dataverse.java),
 * or its database id, which the API takes in its place.
 */
const ALIAS = /^[A-Za-z0-9_-]{1,60}$/;

/** Every problem of an entry's options, each naming the option. */
export function validateOptions(options: unknown): string[] {
  return checkOptions(options, {
    api_url: { kind: 'url' },
    collection: { kind: 'text', pattern: ALIAS, expected: "a collection's alias (letters, digits, _ and -)" },
    per_page: { kind: 'integer', min: 1, max: MAX_PAGE_SIZE },
  });
}
