import type { Call, FakeGitHub } from './fake-github';
import { GitError, typeOfMode, type TreeChange } from './git-objects';
import { gitCommitJson, refJson, repositoryUrl, treeJson, type FakeRepository } from './representations';

interface TreeItem {
  path?: unknown;
  mode?: unknown;
  type?: unknown;
  sha?: unknown;
  content?: unknown;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** The branch a `heads/<branch>` ref names. */
function branchOf(ref: string): string | undefined {
  return /^heads\/(.+)$/.exec(ref)?.[1];
}

/** The changes a create-a-tree request asks for, or why it is refused. */
function treeChanges(repository: FakeRepository, items: TreeItem[]): TreeChange[] | string {
  const changes: TreeChange[] = [];
  for (const item of items) {
    const path = typeof item.path === 'string' ? item.path.split('/') : [];
    if (path.length === 0 || path.some((name) => ['', '.', '..', '.git'].includes(name)))
      return `tree.path ${String(item.path)} is not valid`;
    const type = typeof item.mode === 'string' ? typeOfMode(item.mode) : undefined;
    if (!type || item.type !== type) return `tree.mode and tree.type of ${path.join('/')} do not agree`;
    if (item.sha !== undefined && item.content !== undefined)
      return 'Use either tree.sha or content, not both';
    const sha =
      typeof item.content === 'string' ? repository.objects.putBlob(Buffer.from(item.content)) : item.sha;
    if (sha === null) changes.push({ path, entry: null });
    else if (typeof sha !== 'string' || (type !== 'commit' && !repository.objects.has(sha, type)))
      return `tree.sha ${JSON.stringify(sha)} is not a valid ${type}`;
    else changes.push({ path, entry: { mode: item.mode as string, type, sha } });
  }
  return changes;
}

export function gitRoutes(fake: FakeGitHub): void {
  /**
   * The repository of a git data request; an empty one answers 409
   * (https://docs.github.com/en/rest/guides/using-the-rest-api-to-interact-with-your-git-database).
   */
  const database = (call: Call, needsPush = false) => {
    const repository = fake.repositoryAt(call, needsPush);
    if (repository && fake.head(repository) === undefined) {
      call.fail(409, 'Git Repository is empty.');
      return undefined;
    }
    return repository;
  };

  // https://docs.github.com/en/rest/git/refs#get-a-reference (`heads/<branch>`; 404 for no such ref)
  fake.serve(
    'GET',
    '/repos/{owner}/{repo}/git/ref/{ref}',
    (call) => {
      const repository = database(call);
      if (!repository) return;
      const branch = branchOf(call.request.params.ref);
      const sha = branch === undefined ? undefined : repository.branches.get(branch);
      if (branch === undefined || sha === undefined) return call.fail(404, 'Not Found');
      call.reply(200, refJson(repository, branch, sha, fake.hosts));
    },
    { greedy: ['ref'] },
  );

  // https://docs.github.com/en/rest/git/refs#update-a-reference (a fast-forward unless `force`)
  fake.serve(
    'PATCH',
    '/repos/{owner}/{repo}/git/refs/{ref}',
    async (call) => {
      const repository = database(call, true);
      if (!repository) return;
      const body = await call.request.json<{ sha?: unknown; force?: boolean }>();
      const branch = branchOf(call.request.params.ref);
      if (branch === undefined || !repository.branches.has(branch))
        return call.fail(422, 'Reference does not exist');
      if (typeof body?.sha !== 'string' || !repository.objects.commit(body.sha))
        return call.fail(422, 'Object does not exist');
      fake.beforeNextRefUpdate?.();
      fake.beforeNextRefUpdate = null;
      const current = repository.branches.get(branch);
      const fastForward = repository.objects.history(body.sha).some(({ sha }) => sha === current);
      if (!fastForward && body.force !== true) return call.fail(422, 'Update is not a fast forward');
      fake.moveBranch(repository, branch, body.sha);
      call.reply(200, refJson(repository, branch, body.sha, fake.hosts));
    },
    { greedy: ['ref'] },
  );

  // https://docs.github.com/en/rest/git/commits#get-a-commit-object
  fake.serve('GET', '/repos/{owner}/{repo}/git/commits/{commit_sha}', (call) => {
    const repository = database(call);
    if (!repository) return;
    const sha = call.request.params.commit_sha;
    const commit = repository.objects.commit(sha);
    if (!commit) return call.fail(404, 'Not Found');
    call.reply(200, gitCommitJson(repository, sha, commit, fake.hosts));
  });

  // https://docs.github.com/en/rest/git/commits#create-a-commit (author: the token's user, now)
  fake.serve('POST', '/repos/{owner}/{repo}/git/commits', async (call) => {
    const repository = database(call, true);
    if (!repository || !call.viewer) return;
    const body = await call.request.json<{ message?: unknown; tree?: unknown; parents?: unknown }>();
    const parents = Array.isArray(body?.parents) ? (body.parents as unknown[]) : [];
    if (typeof body?.message !== 'string' || typeof body.tree !== 'string')
      return call.fail(422, 'Invalid request.\n\n"message" and "tree" are required.');
    if (!repository.objects.tree(body.tree)) return call.fail(422, 'Tree SHA does not exist');
    if (!parents.every((parent) => typeof parent === 'string' && repository.objects.commit(parent)))
      return call.fail(422, 'Parent SHA does not exist or is not a commit object');
    const commit = {
      tree: body.tree,
      parents: parents as string[],
      message: body.message,
      date: fake.now(),
      author: fake.author(call.viewer),
    };
    const sha = repository.objects.putCommit(commit);
    call.reply(201, gitCommitJson(repository, sha, commit, fake.hosts));
  });

  // https://docs.github.com/en/rest/git/trees#get-a-tree: by a tree's sha, or a branch or commit naming one;
  // `truncated` when it holds more entries than the fake lists at once (`treeEntryLimit`)
  fake.serve(
    'GET',
    '/repos/{owner}/{repo}/git/trees/{tree_sha}',
    (call) => {
      const repository = database(call);
      if (!repository) return;
      const named = call.request.params.tree_sha;
      const commit = repository.objects.commit(repository.branches.get(named) ?? named);
      const sha = commit?.tree ?? named;
      const entries = repository.objects.tree(sha);
      if (!entries) return call.fail(404, 'Not Found');
      const truncated = entries.length > fake.treeEntryLimit;
      const listed = truncated ? entries.slice(0, fake.treeEntryLimit) : entries;
      call.reply(200, treeJson(repository, sha, listed, truncated, fake.hosts));
    },
    { greedy: ['tree_sha'] },
  );

  // https://docs.github.com/en/rest/git/trees#create-a-tree: nested paths, `base_tree`, a null sha deletes
  fake.serve('POST', '/repos/{owner}/{repo}/git/trees', async (call) => {
    const repository = database(call, true);
    if (!repository) return;
    const body = await call.request.json<{ tree?: unknown; base_tree?: unknown }>();
    if (!Array.isArray(body?.tree)) return call.fail(422, 'Invalid tree info');
    const base = body.base_tree;
    if (base !== undefined && (typeof base !== 'string' || !repository.objects.tree(base)))
      return call.fail(422, 'base_tree is not a valid tree oid');
    const changes = treeChanges(repository, body.tree as TreeItem[]);
    if (typeof changes === 'string') return call.fail(422, changes);
    let sha: string;
    try {
      sha = repository.objects.changeTree(base, changes);
    } catch (error) {
      if (error instanceof GitError) return call.fail(422, error.message);
      throw error;
    }
    call.reply(201, treeJson(repository, sha, repository.objects.tree(sha) ?? [], false, fake.hosts));
  });

  // https://docs.github.com/en/rest/git/blobs#get-a-blob: the raw bytes with `application/vnd.github.raw+json`,
  // else JSON with the content in base64; with `redirectBlobs`, a redirect to another host, as any request
  // may be (https://docs.github.com/en/rest/using-the-rest-api/best-practices-for-using-the-rest-api#follow-redirects)
  fake.serve('GET', '/repos/{owner}/{repo}/git/blobs/{file_sha}', async (call) => {
    const repository = database(call);
    if (!repository) return;
    const sha = call.request.params.file_sha;
    const content = repository.objects.blob(sha);
    if (!content) return call.fail(404, 'Not Found');
    if (!String(call.request.headers.accept).includes('application/vnd.github.raw')) {
      return call.reply(200, {
        sha,
        node_id: Buffer.from(`Blob:${sha}`).toString('base64'),
        size: content.length,
        url: `${repositoryUrl(repository, fake.hosts)}/git/blobs/${sha}`,
        content: content.toString('base64').replace(/.{60}/g, '$&\n'),
        encoding: 'base64',
      });
    }
    if (fake.storage)
      return call.answer.empty(302, {
        ...call.headers,
        location: `${fake.storage.origin}/${repository.id}/${sha}`,
      });
    await call.answer.send(200, content, call.headers);
  });

  // https://docs.github.com/en/rest/git/blobs#create-a-blob (`encoding`: `utf-8` or `base64`)
  fake.serve('POST', '/repos/{owner}/{repo}/git/blobs', async (call) => {
    const repository = database(call, true);
    if (!repository) return;
    const body = await call.request.json<{ content?: unknown; encoding?: unknown }>();
    const encoding = body?.encoding ?? 'utf-8';
    if (typeof body?.content !== 'string' || (encoding !== 'utf-8' && encoding !== 'base64'))
      return call.fail(422, 'Invalid request.\n\n"content" is required; "encoding" is utf-8 or base64.');
    if (encoding === 'base64' && !BASE64.test(body.content.replace(/\s/g, '')))
      return call.fail(422, 'Invalid Base64 content');
    const sha = repository.objects.putBlob(
      Buffer.from(body.content, encoding === 'base64' ? 'base64' : 'utf8'),
    );
    call.reply(201, { url: `${repositoryUrl(repository, fake.hosts)}/git/blobs/${sha}`, sha });
  });
}
