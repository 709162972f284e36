import type { OsfFake } from '../../fakes/osf/osf-fake';
import { ALL_ACTIONS } from '../../support/fs-fixtures';

/**
 * The targets-file entry of an OSF target at the fake, its API and file service; `filesUrls` are the file
 * services of other storage regions the token may be sent to.
 */
export function osfEntry(fake: OsfFake, filesUrls?: string[]): Record<string, unknown> {
  return {
    readable_name: 'OSF',
    status_url: `${fake.api.url}/`,
    token_url: 'https://osf.io/settings/tokens',
    supported_actions: ALL_ACTIONS,
    supported_hash_algorithms: ['sha256', 'md5'],
    infinite_depth: true,
    search_parameters: ['title', 'id', 'author', 'keywords'],
    connector: 'osf',
    options: {
      api_url: fake.api.url,
      files_url: fake.files.origin,
      ...(filesUrls ? { files_urls: filesUrls } : {}),
    },
  };
}
