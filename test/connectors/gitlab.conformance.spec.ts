import { gitlabConnector } from '@app/connectors/gitlab';
import { describeConnector, TOKEN } from '../conformance/describe-connector';
import { FakeGitlab } from '../fakes/gitlab/fake-gitlab';

describeConnector(gitlabConnector, async () => {
  const gitlab = await new FakeGitlab().start();
  gitlab.addUser('alice', TOKEN);
  gitlab.addUser('bob', 'bob-token');
  const seed = (owner: string, title: string, options: Parameters<FakeGitlab['seedProject']>[2]) =>
    String(gitlab.seedProject(owner, title, options).id);
  return {
    options: { api_url: gitlab.url },
    seedProject: async (title, files, { keywords: topics, lfs } = {}) =>
      seed('alice', title, { files, topics, lfs }),
    reset: async () => gitlab.reset(),
    // bob's public project whose repository only its members may read
    forbiddenId: async () =>
      seed('bob', 'Members Only', {
        files: { 'a.txt': 'a' },
        visibility: 'public',
        repositoryAccessLevel: 'private',
      }),
    // a project whose deletion is scheduled
    goneId: async () => seed('alice', 'Leaving Soon', { files: { 'a.txt': 'a' }, markedForDeletion: true }),
    teardown: () => gitlab.stop(),
  };
});
