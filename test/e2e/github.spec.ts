import { createHash } from 'node:crypto';
import { FakeGitHub } from '../fakes/github/fake-github';
import { ALL_ACTIONS } from '../support/fs-fixtures';
import { describeRemoteTarget } from './remote/describe-remote-target';

describeRemoteTarget(
  'GitHub',
  async () => {
    const fake = await FakeGitHub.start();
    const gitUrl = await fake.startLfs();
    fake.addAccount('alice', { token: 'alice-github-token' });
    return {
      fake: fake.server,
      entry: {
        readable_name: 'GitHub',
        status_url: `${fake.server.url}/rate_limit`,
        token_url: 'https://github.com/settings/tokens',
        supported_actions: ALL_ACTIONS,
        supported_hash_algorithms: [],
        infinite_depth: true,
        search_parameters: ['general', 'title', 'id', 'author', 'keywords'],
        connector: 'github',
        options: { api_url: fake.server.url, git_url: gitUrl },
      },
      token: 'alice-github-token',
      badToken: 'mallory-token',
      seedProject: async (title, files) => String(fake.seedRepository('alice', title, { files }).id),
      fileReads: /\/git\/blobs\/[0-9a-f]{40}$/,
      fileWrites: { method: 'POST', path: /\/git\/blobs$/ },
      lfs: {
        seedProject: async (title, files, lfs) =>
          String(fake.seedRepository('alice', title, { files, lfs }).id),
        corrupt(content, bytes) {
          const oid = createHash('sha256').update(content).digest('hex');
          for (const repository of fake.repositories.values())
            if (repository.lfsObjects.has(oid)) repository.lfsObjects.set(oid, bytes);
        },
      },
      stop: () => fake.stop(),
    };
  },
  { lfs: true, largestFile: 100 * 2 ** 20 },
);
