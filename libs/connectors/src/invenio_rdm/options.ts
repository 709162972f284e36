import { checkOptions } from '../option-rules';

export interface InvenioRdmOptions {
  /** the instance's REST API base, e.g. `https://zenodo.org/api/` or `https://repository.tugraz.at/api/` */
  api_url?: string;
  per_page?: number;
}

/** Zenodo, the largest InvenioRDM instance; any other is named by `api_url`. */
export const DEFAULT_API_URL = 'https://zenodo.org/api/';
/**
 * The largest page the connector asks for. InvenioRDM's search takes larger ones (invenio-records-resources'
 * SearchRequestArgsSchema has no maximum of its own), but an instance may set one; 100 is what Zenodo allows
 * to authenticated users.
 */
export const MAX_PAGE_SIZE = 100;

/** Every problem with an entry's options, each naming the option. */
export function validateOptions(options: unknown): string[] {
  return checkOptions(options, {
    api_url: { kind: 'url' },
    per_page: { kind: 'integer', min: 1, max: MAX_PAGE_SIZE },
  });
}
