import { randomBytes } from 'node:crypto';
import type { FakeAnswer, FakeRequest, FakeServer } from '../fake-server';
import type { FakeGitHub } from './fake-github';
import { canRead, type FakeAccount, type FakeRepository } from './representations';

/** https://github.com/git-lfs/git-lfs/blob/main/docs/api/batch.md: requests and answers are of this type */
const LFS_MEDIA_TYPE = 'application/vnd.git-lfs+json';
const HELP = 'https://docs.github.com/repositories/working-with-files/managing-large-files';

interface BatchRequest {
  operation?: unknown;
  objects?: { oid?: unknown; size?: unknown }[];
}

/**
 * GitHub's Git LFS server, apart from its REST API: the batch API on the git host
 * (`https://github.com/{owner}/{repo}.git/info/lfs/objects/batch`, https://github.com/git-lfs/git-lfs/blob/main/docs/api/batch.md),
 * taking HTTP Basic credentials with the user's token as password
 * (https://github.com/git-lfs/git-lfs/blob/main/docs/api/authentication.md), and downloads from a storage host
 * at the `href` the batch answer gives, with the `header` it gives
 * (https://github.com/git-lfs/git-lfs/blob/main/docs/api/basic-transfers.md). Each download link's header is
 * its own: the storage refuses a request without it, and never asks for the user's token.
 */
export function lfsRoutes(fake: FakeGitHub, gitHost: FakeServer, storage: FakeServer): void {
  /** the header each issued download link must come with, by the link's path */
  const issued = new Map<string, string>();

  const lfsAnswer = (
    answer: FakeAnswer,
    status: number,
    body: unknown,
    headers: Record<string, string> = {},
  ) => answer.json(status, body, { 'content-type': LFS_MEDIA_TYPE, ...headers });

  /** The account of the request's Basic credentials (a password that is one of the account's tokens). */
  const viewerOf = (request: FakeRequest): FakeAccount | null | 'refused' => {
    const basic = /^Basic\s+(\S+)$/i.exec(String(request.headers.authorization ?? ''))?.[1];
    if (request.headers.authorization === undefined) return null;
    if (!basic) return 'refused';
    const [login, ...password] = Buffer.from(basic, 'base64').toString('utf8').split(':');
    const account = fake.accountOfToken(password.join(':'));
    return account && account.login.toLowerCase() === login.toLowerCase() ? account : 'refused';
  };

  // the batch API: `download` only (this fake takes no uploads)
  gitHost.route('POST', '/{owner}/{repo}.git/info/lfs/objects/batch', async (request, answer) => {
    // github.com answers 406 without this Accept (https://github.com/treeverse/scmrepo/pull/302)
    if (!String(request.headers.accept ?? '').includes(LFS_MEDIA_TYPE))
      return lfsAnswer(answer, 406, { message: 'Not Acceptable', documentation_url: HELP });
    const viewer = viewerOf(request);
    const repository = fake.repositoryNamed(request.params.owner, request.params.repo);
    if (viewer === 'refused' || (!viewer && repository?.private))
      // the spec's 401 and its LFS-Authenticate header
      return lfsAnswer(
        answer,
        401,
        { message: 'Credentials needed', documentation_url: HELP },
        {
          'lfs-authenticate': 'Basic realm="GitHub"',
        },
      );
    if (!repository || !canRead(repository, viewer))
      return lfsAnswer(answer, 404, { message: 'Repository not found', documentation_url: HELP });
    const body = await request.json<BatchRequest>();
    if (body?.operation !== 'download' || !Array.isArray(body.objects))
      return lfsAnswer(answer, 422, { message: 'Validation error: only downloads are served here' });
    lfsAnswer(answer, 200, {
      transfer: 'basic',
      objects: body.objects.map((object) => downloadObject(repository, object)),
      hash_algo: 'sha256',
    });
  });

  /** One object of a batch answer: where to download it, or the spec's per-object error. */
  const downloadObject = (repository: FakeRepository, object: { oid?: unknown; size?: unknown }) => {
    const content = typeof object.oid === 'string' ? repository.lfsObjects.get(object.oid) : undefined;
    if (!content)
      return { oid: object.oid, size: object.size, error: { code: 404, message: 'Object does not exist' } };
    const path = `/objects/${repository.id}/${String(object.oid)}`;
    const header = `RemoteAuth ${randomBytes(12).toString('hex')}`;
    issued.set(path, header);
    return {
      oid: object.oid,
      size: object.size,
      authenticated: true,
      actions: {
        download: {
          href: `${storage.origin}${path}?expires=3600`,
          header: { Authorization: header },
          expires_in: 3600,
        },
      },
    };
  };

  // the storage: an object's content, to a request with the header its link was issued with
  storage.route('GET', '/objects/{repository_id}/{oid}', async (request, answer) => {
    const path = `/objects/${request.params.repository_id}/${request.params.oid}`;
    if (!issued.has(path) || request.headers.authorization !== issued.get(path))
      return answer.json(403, { message: 'Request has expired or is not signed' });
    const content = fake.repositories
      .get(Number(request.params.repository_id))
      ?.lfsObjects.get(request.params.oid);
    if (!content) return answer.json(404, { message: 'NoSuchKey' });
    await answer.send(200, content, {}, true);
  });
}
