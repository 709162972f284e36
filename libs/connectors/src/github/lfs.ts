import type { Readable } from 'node:stream';
import { ConnectorError } from '../connector-error';
import type { LfsPointer } from '../git-lfs';
import { readJson, type UpstreamClient } from '../http';
import type { GitHubRepository } from './entities';

/** https://github.com/git-lfs/git-lfs/blob/main/docs/api/batch.md#requests (GitHub answers 406 without it) */
const LFS_MEDIA_TYPE = 'application/vnd.git-lfs+json';

interface BatchAction {
  href?: unknown;
  header?: Record<string, unknown>;
}

interface BatchObject {
  oid: string;
  size: number;
  actions?: { download?: BatchAction };
  error?: { code?: number; message?: string };
}

/**
 * GitHub's Git LFS batch API, as one user reaches it (https://github.com/git-lfs/git-lfs/blob/main/docs/api/batch.md,
 * https://github.com/git-lfs/git-lfs/blob/main/docs/api/basic-transfers.md). The batch endpoint is on the git
 * host, not the REST API's (`https://github.com/{owner}/{repo}.git/info/lfs/objects/batch`), and takes the
 * user's token as HTTP Basic credentials (https://github.com/git-lfs/git-lfs/blob/main/docs/api/authentication.md);
 * an object is then downloaded from where the batch answer says, with the headers it gives and nothing else:
 * the user's token never goes to the storage host.
 */
export class GitHubLfs {
  constructor(
    /** the git host, with the user's credentials for its origin only */
    private readonly gitHost: UpstreamClient,
    /** the same upstream without credentials, for the object downloads the batch answers name */
    private readonly storage: UpstreamClient,
  ) {}

  /** The content of the object a pointer names, streamed. */
  async download(repository: GitHubRepository, pointer: LfsPointer, path: string): Promise<Readable> {
    const { href, header } = await this.downloadAction(repository, pointer, path);
    const response = await this.storage.request({ url: href, headers: { accept: '*/*', ...header } });
    if (response.status >= 300) {
      await response.body.dump();
      throw new ConnectorError(
        502,
        `GitHub's LFS storage answered ${response.status} for the content of ${repository.full_name}/${path}.`,
      );
    }
    return response.body;
  }

  /** Where and how to download an object (a `download` action of a batch answer). */
  private async downloadAction(
    repository: GitHubRepository,
    pointer: LfsPointer,
    path: string,
  ): Promise<{ href: string; header: Record<string, string> }> {
    const request = {
      operation: 'download',
      transfers: ['basic'],
      ref: { name: `refs/heads/${repository.default_branch}` },
      objects: [{ oid: pointer.oid, size: pointer.size }],
      hash_algo: 'sha256',
    };
    const text = JSON.stringify(request);
    const response = await this.gitHost.request({
      method: 'POST',
      url: `${repository.full_name.split('/').map(encodeURIComponent).join('/')}.git/info/lfs/objects/batch`,
      headers: { accept: LFS_MEDIA_TYPE, 'content-type': LFS_MEDIA_TYPE },
      body: () => text,
      // asking where objects are changes nothing
      idempotent: true,
    });
    if (response.status >= 300) {
      const failure = await this.gitHost.failure(response);
      // the API took the token: a refusal here is the LFS endpoint's (a wrong git_url, a token it does not take)
      if (![401, 403, 404].includes(response.status)) throw failure;
      throw new ConnectorError(
        502,
        `GitHub's LFS endpoint answered ${response.status} for ${repository.full_name} (${response.url.origin}; options.git_url).`,
      );
    }
    const answer = await readJson<{ objects?: BatchObject[] }>(response, 'GitHub LFS');
    const object = answer?.objects?.find((candidate) => candidate.oid === pointer.oid);
    const missing = (why: string) =>
      new ConnectorError(
        502,
        `GitHub's LFS cannot give the content of ${repository.full_name}/${path}: ${why}.`,
      );
    if (!object) throw missing('its answer does not name the object');
    if (object.error) throw missing(`${object.error.code ?? ''} ${object.error.message ?? ''}`.trim());
    const action = object.actions?.download;
    if (typeof action?.href !== 'string' || !/^https?:\/\//.test(action.href))
      throw missing('its answer has no download link');
    const header = Object.fromEntries(
      Object.entries(action.header ?? {}).filter(
        (entry): entry is [string, string] => typeof entry[1] === 'string',
      ),
    );
    return { href: action.href, header };
  }
}
