import { bindSession } from '../bound-session';
import { capabilities } from '../capabilities';
import type { ConnectorDefinition } from '../connector';
import { Upstream } from '../http';
import { pathSegmentProblem } from '../name-rules';
import { remoteConnector } from '../remote-connector';
import { CurateNdApi } from './api';
import { firstText } from './entities';
import * as operations from './operations';
import { DEFAULT_API_URL, MAX_PER_PAGE, validateOptions, type CurateNdOptions } from './options';
import type { CurateNdSession } from './session';

/** Shown as the user name when CurateND does not tell it (the user has deposited nothing yet). */
const UNNAMED_USER = 'CurateND user';

export const curateNdConnector: ConnectorDefinition<CurateNdOptions> = {
  name: 'curate_nd',
  // a source only: nothing is written to CurateND
  capabilities: capabilities({ searchFilters: ['general', 'title', 'id'], abilities: ['keywords'] }),
  validateOptions,
  create(options, context) {
    const upstream = new Upstream('CurateND', options.api_url ?? DEFAULT_API_URL, context.upstream);
    const perPage = options.per_page ?? Math.min(context.perPage, MAX_PER_PAGE);
    // asked once for the target, without a token, on the first title search; asked again after a failure
    const anonymous = new CurateNdApi(upstream.as({}));
    let titleFilter: Promise<boolean> | null = null;
    const knowsTitleFilter = (): Promise<boolean> => {
      titleFilter ??= anonymous.knowsTitleFilter().catch((error: unknown) => {
        titleFilter = null;
        throw error;
      });
      return titleFilter;
    };
    return remoteConnector({
      upstream,
      statusTimeoutMs: context.statusTimeoutMs,
      hashAlgorithms: ['md5'],
      // nothing is written to CurateND; the rule every target shares stands for it
      nameProblem: pathSegmentProblem,
      // the public search of one result: cheap, and answered without a token
      probePath: 'items?rows=1',
      /*
       * The token goes in `X-Api-Token` (Api::BaseController#set_current_user!). A search for the user's own
       * deposits checks it (CurateND refuses `self` without a known token) and names the user: the results
       * carry their `depositor`.
       */
      async open(token) {
        const api = new CurateNdApi(upstream.as({ 'x-api-token': token }));
        const deposits = await api.search({ editor: 'self', depositor: 'self', rows: 1 });
        const username = firstText(deposits.results[0]?.depositor) ?? UNNAMED_USER;
        return bindSession<CurateNdSession>(username, { api, perPage, knowsTitleFilter }, operations);
      },
    });
  },
};
