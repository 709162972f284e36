import { FakeCurateNd } from '../fakes/curate_nd/fake-curate-nd';
import { ALL_ACTIONS } from '../support/fs-fixtures';
import { describeRemoteTarget } from './remote/describe-remote-target';

describeRemoteTarget(
  'CurateND',
  async () => {
    const fake = await new FakeCurateNd().start();
    fake.addUser('alice-curate-token', 'alice');
    return {
      fake: fake.server,
      entry: {
        readable_name: 'CurateND',
        status_url: `${fake.url}/items`,
        token_url: 'https://curate.nd.edu/api/access_tokens',
        supported_actions: {
          ...ALL_ACTIONS,
          resource_upload: false,
          resource_transfer_in: false,
          keywords_upload: false,
        },
        supported_hash_algorithms: ['md5'],
        infinite_depth: false,
        search_parameters: ['general', 'title', 'id'],
        connector: 'curate_nd',
        options: { api_url: fake.url },
      },
      token: 'alice-curate-token',
      badToken: 'mallory-token',
      seedProject: async (title, files) => fake.addWork({ title, owner: 'alice', files }),
      fileReads: /\/items\/download\//,
      stop: () => fake.stop(),
    };
  },
  { readOnly: true, folders: false },
);
