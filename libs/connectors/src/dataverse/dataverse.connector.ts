import { bindSession } from '../bound-session';
import { capabilities } from '../capabilities';
import type { ConnectorDefinition } from '../connector';
import { Upstream } from '../http';
import { remoteConnector } from '../remote-connector';
import { DataverseApi } from './api';
import { authorName } from './entities';
import { fileNameProblem } from './names';
import {
  DEFAULT_API_URL,
  DEFAULT_COLLECTION,
  MAX_PAGE_SIZE,
  validateOptions,
  type DataverseOptions,
} from './options';
import * as operations from './operations';
import type { DataverseSession } from './session';

export const dataverseConnector: ConnectorDefinition<DataverseOptions> = {
  name: 'dataverse',
  capabilities: capabilities({
    searchFilters: ['general', 'title', 'id', 'author', 'keywords'],
    // a dataset made for the job is deleted whole (it was never published); files it created are deleted
    abilities: ['write', 'folders', 'keywords', 'takesBackNewProjects', 'takesBackCreatedFiles'],
  }),
  validateOptions,
  create(options, context) {
    // the token goes to the installation's origin only: not to a store its uploads or downloads are sent to
    const upstream = new Upstream('Dataverse', options.api_url ?? DEFAULT_API_URL, context.upstream);
    const settings = {
      perPage: options.per_page ?? Math.min(context.perPage, MAX_PAGE_SIZE),
      collection: options.collection ?? DEFAULT_COLLECTION,
    };
    return remoteConnector({
      upstream,
      statusTimeoutMs: context.statusTimeoutMs,
      // a file has one checksum, of the type the installation was set to when it was stored
      // (https://guides.dataverse.org/en/latest/api/native-api.html#get-fixity-algorithm)
      hashAlgorithms: ['sha512', 'sha256', 'sha1', 'md5'],
      nameProblem: fileNameProblem,
      // answers without a token (https://guides.dataverse.org/en/latest/api/native-api.html#show-dataverse-software-version-and-build-number)
      probePath: 'info/version',
      /*
       * `users/:me` checks the token (native-api.html#get-user-information-in-json-format): Dataverse answers
       * 401 "Bad API key" for one it does not know. The token travels in the X-Dataverse-key header, never
       * in the query string (`key=`), which gets logged.
       */
      async open(token) {
        const api = new DataverseApi(upstream.as({ 'x-dataverse-key': token }), context.upstream.maxWaitMs);
        const account = await api.me();
        return bindSession<DataverseSession>(
          account.displayName || authorName(account),
          { ...settings, api, account },
          operations,
        );
      },
    });
  },
};
