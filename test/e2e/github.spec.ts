import { createHash } from 'node:crypto';
import { FakeGitHub } from '../fakes/github/fake-github';
import { describeRemoteTarget } from './remote/describe-remote-target';
import { githubEntry } from './remote/github-entry';

describeRemoteTarget(
  'GitHub',
  async () => {
    const fake = await FakeGitHub.start();
    const gitUrl = await fake.startLfs();
    fake.addAccount('alice', { token: 'alice-github-token' });
    return {
      fake: fake.server,
      entry: githubEntry(fake, gitUrl),
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
