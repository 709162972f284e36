import { createHash } from 'node:crypto';
import { FakeGitlab } from '../fakes/gitlab/fake-gitlab';
import { ALL_ACTIONS } from '../support/fs-fixtures';
import { describeRemoteTarget } from './remote/describe-remote-target';

describeRemoteTarget(
  'GitLab',
  async () => {
    const gitlab = await new FakeGitlab().start();
    gitlab.addUser('alice', 'alice-gitlab-token');
    return {
      fake: gitlab.server,
      entry: {
        readable_name: 'GitLab',
        status_url: `${gitlab.url}/version`,
        token_url: 'https://gitlab.com/-/user_settings/personal_access_tokens',
        supported_actions: ALL_ACTIONS,
        supported_hash_algorithms: ['sha256'],
        infinite_depth: true,
        search_parameters: ['general', 'title', 'id', 'author'],
        connector: 'gitlab',
        options: { api_url: gitlab.url },
      },
      token: 'alice-gitlab-token',
      badToken: 'mallory-token',
      seedProject: async (title, files) => String(gitlab.seedProject('alice', title, { files }).id),
      fileReads: /\/repository\/files\/.+\/raw$/,
      fileWrites: { method: 'POST', path: /\/repository\/commits$/ },
      lfs: {
        seedProject: async (title, files, lfs) =>
          String(gitlab.seedProject('alice', title, { files, lfs }).id),
        corrupt(content, bytes) {
          gitlab.corruptLfsObject(createHash('sha256').update(content).digest('hex'), bytes);
        },
      },
      stop: () => gitlab.stop(),
    };
  },
  { lfs: true },
);
