import { githubConnector } from '@app/connectors/github';
import { describeConnector } from '../conformance/describe-connector';
import { FakeGitHub } from '../fakes/github/fake-github';
import { connectorContext } from '../support/connector-context';

describeConnector('github', async () => {
  const fake = await FakeGitHub.start();
  fake.addAccount('alice', { token: 'alice-token' });
  // an organization whose repositories a token not yet authorized for its single sign-on may not see
  fake.addAccount('acme', { organization: true, samlProtected: true });
  const perPage = 5;
  return {
    connector: githubConnector.create({ api_url: fake.server.url, per_page: perPage }, connectorContext()),
    token: 'alice-token',
    badToken: 'mallory-token',
    perPage,
    // a repository's name holds only letters, digits, '.', '-' and '_'
    titleOf: (requested) => requested.replace(/[^A-Za-z0-9._-]+/g, '-'),
    folders: true,
    search: {
      title: (project) => project.title.split(' ')[0],
      general: (project) => project.title.split(' ')[1],
      keywords: (project) => project.keywords[0],
      id: (project) => project.id,
      author: () => 'alice',
    },
    async seedProject(title, files, options = {}) {
      return String(fake.seedRepository('alice', title, { files, topics: options.keywords }).id);
    },
    async reset() {
      fake.reset();
    },
    async forbiddenId() {
      return String(fake.seedRepository('acme', 'internal-data', { files: { 'a.txt': 'a' } }).id);
    },
    teardown: () => fake.stop(),
  };
});
