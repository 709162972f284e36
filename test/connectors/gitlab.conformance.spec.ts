import { gitlabConnector } from '@app/connectors/gitlab';
import { describeConnector } from '../conformance/describe-connector';
import { connectorContext } from '../support/connector-context';
import { FakeGitlab } from '../fakes/gitlab/fake-gitlab';

describeConnector('gitlab', async () => {
  const gitlab = await new FakeGitlab().start();
  gitlab.addUser('alice', 'alice-token');
  gitlab.addUser('bob', 'bob-token');
  return {
    connector: gitlabConnector.create({ api_url: gitlab.url, per_page: 5 }, connectorContext()),
    token: 'alice-token',
    badToken: 'mallory-token',
    perPage: 5,
    folders: true,
    search: {
      general: (project) => project.title.split(' ')[1],
      title: (project) => project.title.split(' ')[0].toLowerCase(),
      id: (project) => project.id,
      author: () => 'alice',
      keywords: (project) => project.keywords[0],
    },
    async seedProject(title, files, options = {}) {
      return String(gitlab.seedProject('alice', title, { files, topics: options.keywords }).id);
    },
    async reset() {
      gitlab.reset();
    },
    // bob's public project whose repository only its members may read
    async forbiddenId() {
      const files = { 'a.txt': 'a' };
      return String(
        gitlab.seedProject('bob', 'Members Only', {
          files,
          visibility: 'public',
          repositoryAccessLevel: 'private',
        }).id,
      );
    },
    // a project whose deletion is scheduled
    async goneId() {
      return String(
        gitlab.seedProject('alice', 'Leaving Soon', { files: { 'a.txt': 'a' }, markedForDeletion: true }).id,
      );
    },
    teardown: () => gitlab.stop(),
  };
});
