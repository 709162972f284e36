import { githubConnector } from '@app/connectors/github';
import { describeConnector, TOKEN } from '../conformance/describe-connector';
import { FakeGitHub } from '../fakes/github/fake-github';

describeConnector(githubConnector, async () => {
  const fake = await FakeGitHub.start();
  fake.addAccount('alice', { token: TOKEN });
  // an organization whose repositories a token not yet authorized for its single sign-on may not see
  fake.addAccount('acme', { organization: true, samlProtected: true });
  return {
    options: { api_url: fake.server.url, git_url: await fake.startLfs() },
    seedProject: async (title, files, { keywords: topics, lfs } = {}) =>
      String(fake.seedRepository('alice', title, { files, topics, lfs }).id),
    reset: async () => fake.reset(),
    // a repository's name holds only letters, digits, '.', '-' and '_'
    titleOf: (requested) => requested.replace(/[^A-Za-z0-9._-]+/g, '-'),
    forbiddenId: async () =>
      String(fake.seedRepository('acme', 'internal-data', { files: { 'a.txt': 'a' } }).id),
    teardown: () => fake.stop(),
  };
});
