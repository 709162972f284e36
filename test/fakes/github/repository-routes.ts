import { repositoryName, type Call, type FakeGitHub } from './fake-github';
import { FILE_MODE } from './git-objects';
import {
  commitItemJson,
  gitCommitJson,
  privateUser,
  repositoryJson,
  repositoryUrl,
  type FakeRepository,
} from './representations';

/** https://docs.github.com/en/rest/repos/repos#list-repositories-for-the-authenticated-user (sort, direction) */
function sorted(call: Call, repositories: FakeRepository[]): FakeRepository[] {
  const query = call.request.url.searchParams;
  const sort = query.get('sort') ?? 'full_name';
  const keys: Record<string, (repository: FakeRepository) => string> = {
    created: (repository) => repository.createdAt,
    updated: (repository) => repository.updatedAt,
    pushed: (repository) => repository.pushedAt,
    full_name: (repository) => `${repository.owner.login}/${repository.name}`.toLowerCase(),
  };
  const key = keys[sort] ?? keys.full_name;
  const sign = (query.get('direction') ?? (sort === 'full_name' ? 'asc' : 'desc')) === 'desc' ? -1 : 1;
  return [...repositories].sort((a, b) => (key(a) < key(b) ? -sign : key(a) > key(b) ? sign : 0));
}

const TOPIC = /^[a-z0-9][a-z0-9-]{0,49}$/;

export function repositoryRoutes(fake: FakeGitHub): void {
  const json = (call: Call, repository: FakeRepository) =>
    repositoryJson(repository, fake.hosts, call.viewer);
  const signedIn = (call: Call) => {
    if (!call.viewer) call.fail(401, 'Requires authentication');
    return call.viewer;
  };

  // https://docs.github.com/en/rest/rate-limit/rate-limit#get-rate-limit-status-for-the-authenticated-user
  // (answers without a token and costs no request)
  fake.serve('GET', '/rate_limit', (call) => call.reply(200, fake.rateLimitJson()), { rate: null });

  // https://docs.github.com/en/rest/users/users#get-the-authenticated-user
  fake.serve('GET', '/user', (call) => {
    const viewer = signedIn(call);
    if (viewer) call.reply(200, privateUser(viewer, [...fake.repositories.values()], fake.hosts));
  });

  // https://docs.github.com/en/rest/repos/repos#list-repositories-for-the-authenticated-user: the repositories
  // the user owns, collaborates on and sees as a member of their organizations (`affiliation`, by default
  // all three), of a `visibility`; `type` (all, owner, public, private, member) instead of both
  fake.serve('GET', '/user/repos', (call) => {
    const viewer = signedIn(call);
    if (!viewer) return;
    const query = call.request.url.searchParams;
    if (query.has('type') && (query.has('visibility') || query.has('affiliation')))
      return call.fail(422, 'Validation Failed');
    const type = query.get('type') ?? 'all';
    const visibility = query.get('visibility') ?? (['public', 'private'].includes(type) ? type : 'all');
    const affiliations = (
      query.get('affiliation') ??
      (type === 'owner'
        ? 'owner'
        : type === 'member'
          ? 'collaborator,organization_member'
          : 'owner,collaborator,organization_member')
    ).split(',');
    const affiliated = (repository: FakeRepository) =>
      (affiliations.includes('owner') && repository.owner === viewer) ||
      (affiliations.includes('collaborator') && repository.collaborators.has(viewer)) ||
      (affiliations.includes('organization_member') && repository.owner.members.has(viewer));
    const listed = [...fake.repositories.values()].filter(
      (repository) =>
        affiliated(repository) && (visibility === 'all' || (visibility === 'private') === repository.private),
    );
    call.reply(
      200,
      fake.page(call, sorted(call, listed)).map((repository) => json(call, repository)),
    );
  });

  // https://docs.github.com/en/rest/repos/repos#create-a-repository-for-the-authenticated-user
  fake.serve('POST', '/user/repos', async (call) => {
    const viewer = signedIn(call);
    if (!viewer) return;
    const body = await call.request.json<{
      name?: unknown;
      description?: string;
      private?: boolean;
      auto_init?: boolean;
    }>();
    const failed = (code: string, message?: string) =>
      call.fail(422, 'Repository creation failed.', {
        errors: [{ resource: 'Repository', code, field: 'name', ...(message ? { message } : {}) }],
      });
    if (typeof body?.name !== 'string' || body.name === '') return failed('missing_field');
    const name = repositoryName(body.name);
    const taken = [...fake.repositories.values()].some(
      (repository) => repository.owner === viewer && repository.name.toLowerCase() === name.toLowerCase(),
    );
    if (taken) return failed('custom', 'name already exists on this account');
    const repository = fake.createRepository(viewer, name, {
      private: body.private,
      description: body.description,
    });
    if (body.auto_init) fake.pushFiles(repository, { 'README.md': `# ${name}\n` }, 'Initial commit');
    call.headers.location = repositoryUrl(repository, fake.hosts);
    call.reply(201, json(call, repository));
  });

  // https://docs.github.com/en/rest/repos/repos#list-repositories-for-a-user ("Lists public repositories")
  fake.serve('GET', '/users/{username}/repos', (call) => {
    const account = fake.account(call.request.params.username);
    if (!account) return call.fail(404, 'Not Found');
    const repositories = [...fake.repositories.values()].filter(
      (repository) => repository.owner === account && !repository.private,
    );
    call.reply(
      200,
      fake.page(call, sorted(call, repositories)).map((repository) => json(call, repository)),
    );
  });

  // Not in GitHub's reference, yet stable by GitHub's word and used by its own redirects for renamed
  // repositories: https://github.com/octokit/octokit.js/issues/163, https://github.com/PyGithub/PyGithub/issues/245,
  // https://github.com/KnpLabs/php-github-api/pull/579. It answers what GET /repos/{owner}/{repo} answers.
  fake.serve('GET', '/repositories/{repository_id}', (call) => {
    const repository = fake.visible(call, fake.repositories.get(Number(call.request.params.repository_id)));
    if (repository) call.reply(200, json(call, repository));
  });

  // https://docs.github.com/en/rest/repos/repos#get-a-repository
  fake.serve('GET', '/repos/{owner}/{repo}', (call) => {
    const repository = fake.repositoryAt(call);
    if (repository) call.reply(200, json(call, repository));
  });

  // https://docs.github.com/en/rest/repos/repos#get-all-repository-topics
  fake.serve('GET', '/repos/{owner}/{repo}/topics', (call) => {
    const repository = fake.repositoryAt(call);
    if (repository) call.reply(200, { names: repository.topics });
  });

  // https://docs.github.com/en/rest/repos/repos#replace-all-repository-topics: names are saved in lower case;
  // a topic is lower-case letters, digits and hyphens, starts with a letter or digit, has at most 50
  // characters, and a repository has at most 20
  // (https://docs.github.com/en/repositories/managing-your-repositorys-settings-and-features/customizing-your-repository/classifying-your-repository-with-topics)
  fake.serve('PUT', '/repos/{owner}/{repo}/topics', async (call) => {
    const repository = fake.repositoryAt(call, true);
    if (!repository) return;
    const body = await call.request.json<{ names?: unknown }>();
    const names = Array.isArray(body?.names) ? body.names : null;
    if (!names || !names.every((name): name is string => typeof name === 'string'))
      return call.fail(422, "Invalid request.\n\nFor 'properties/names', nil is not an array.");
    const topics = [...new Set(names.map((name) => name.toLowerCase()))];
    const invalid = topics.filter((topic) => !TOPIC.test(topic));
    if (invalid.length > 0 || topics.length > 20) {
      return call.fail(422, 'Validation Failed', {
        errors: [
          {
            resource: 'Repository',
            field: 'topics',
            code: 'invalid',
            value: invalid.length > 0 ? invalid : topics,
            message:
              invalid.length > 0
                ? 'Topics must start with a lowercase letter or number, consist of 50 characters or less, and can include hyphens.'
                : 'A repository cannot have more than 20 topics.',
          },
        ],
      });
    }
    repository.topics = topics;
    repository.updatedAt = fake.now();
    call.reply(200, { names: topics });
  });

  // https://docs.github.com/en/rest/commits/commits#list-commits (`sha` a branch or commit, `path`, pages);
  // an empty repository answers 409 (https://github.com/github/rest-api-description/issues/385)
  fake.serve('GET', '/repos/{owner}/{repo}/commits', (call) => {
    const repository = fake.repositoryAt(call);
    if (!repository) return;
    const query = call.request.url.searchParams;
    const head = fake.head(repository);
    if (head === undefined) return call.fail(409, 'Git Repository is empty.');
    const start =
      repository.branches.get(query.get('sha') ?? repository.defaultBranch) ?? query.get('sha') ?? head;
    if (!repository.objects.commit(start)) return call.fail(404, `No commit found for SHA: ${start}`);
    const path = query.get('path')?.split('/').filter(Boolean) ?? [];
    const objects = repository.objects;
    const touches = (commit: { tree: string; parents: string[] }) => {
      const here = objects.entryAt(commit.tree, path)?.sha;
      const parentTree = commit.parents.length > 0 ? objects.commit(commit.parents[0])?.tree : undefined;
      return here !== (parentTree === undefined ? undefined : objects.entryAt(parentTree, path)?.sha);
    };
    const commits = objects.history(start).filter(({ commit }) => path.length === 0 || touches(commit));
    call.reply(
      200,
      fake.page(call, commits).map(({ sha, commit }) => commitItemJson(repository, sha, commit, fake.hosts)),
    );
  });

  // https://docs.github.com/en/rest/repos/contents#create-or-update-file-contents: works on an empty
  // repository too, which it starts (https://docs.github.com/en/rest/guides/using-the-rest-api-to-interact-with-your-git-database)
  fake.serve(
    'PUT',
    '/repos/{owner}/{repo}/contents/{path}',
    async (call) => {
      const repository = fake.repositoryAt(call, true);
      if (!repository) return;
      const body = await call.request.json<{
        message?: unknown;
        content?: unknown;
        sha?: string;
        branch?: string;
      }>();
      if (typeof body?.message !== 'string' || typeof body.content !== 'string')
        return call.fail(422, 'Invalid request.\n\n"message" and "content" are required.');
      if (body.branch !== undefined && body.branch !== repository.defaultBranch)
        return call.fail(422, 'the fake writes the default branch only');
      const path = call.request.params.path.split('/');
      const objects = repository.objects;
      const parent = fake.head(repository);
      const parentTree = parent === undefined ? undefined : objects.commit(parent)?.tree;
      const existing = parentTree === undefined ? undefined : objects.entryAt(parentTree, path);
      if (existing && body.sha === undefined)
        return call.fail(422, 'Invalid request.\n\n"sha" wasn\'t supplied.');
      if (existing && existing.sha !== body.sha)
        return call.fail(409, `${path.join('/')} does not match ${body.sha}`);
      const content = Buffer.from(body.content, 'base64');
      const sha = objects.putBlob(content);
      const tree = objects.changeTree(parentTree, [{ path, entry: { mode: FILE_MODE, type: 'blob', sha } }]);
      const commit = fake.commitTree(repository, tree, parent === undefined ? [] : [parent], body.message);
      const url = repositoryUrl(repository, fake.hosts);
      const web = `${fake.hosts.web}/${repository.owner.login}/${repository.name}`;
      const filePath = path.join('/');
      call.reply(existing ? 200 : 201, {
        content: {
          name: path[path.length - 1],
          path: filePath,
          sha,
          size: content.length,
          url: `${url}/contents/${filePath}?ref=${repository.defaultBranch}`,
          html_url: `${web}/blob/${repository.defaultBranch}/${filePath}`,
          git_url: `${url}/git/blobs/${sha}`,
          download_url: `${fake.hosts.web}/raw/${repository.owner.login}/${repository.name}/${repository.defaultBranch}/${filePath}`,
          type: 'file',
          _links: {
            self: `${url}/contents/${filePath}?ref=${repository.defaultBranch}`,
            git: `${url}/git/blobs/${sha}`,
            html: `${web}/blob/${repository.defaultBranch}/${filePath}`,
          },
        },
        commit: gitCommitJson(repository, commit, objects.commit(commit)!, fake.hosts),
      });
    },
    { greedy: ['path'] },
  );
}
