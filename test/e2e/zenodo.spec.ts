import { ZenodoFake } from '../fakes/zenodo/zenodo-fake';
import { ALL_ACTIONS } from '../support/fs-fixtures';
import { describeRemoteTarget } from './remote/describe-remote-target';

/** Zenodo keeps no folders: the round trip goes through one zip of a bag and comes back as the same tree. */
describeRemoteTarget(
  'Zenodo',
  async () => {
    const fake = await new ZenodoFake().start();
    fake.rateLimit.limit = 100_000;
    const owner = fake.addUser('alice-zenodo-token');
    const other = fake.addUser('bob-zenodo-token');
    return {
      fake: fake.server,
      entry: {
        readable_name: 'Zenodo',
        status_url: `${fake.server.url}/records/`,
        token_url: 'https://zenodo.org/account/settings/applications/',
        supported_actions: ALL_ACTIONS,
        supported_hash_algorithms: ['md5'],
        infinite_depth: false,
        search_parameters: ['general', 'title', 'id', 'keywords'],
        connector: 'zenodo',
        options: { api_url: fake.server.url },
      },
      token: 'alice-zenodo-token',
      badToken: 'mallory-token',
      seedProject: async (title, files) => String(fake.seed(owner, { title, files }).id),
      seedOthersPublished: async (title, files) =>
        String(fake.seed(other, { title, files, published: true }).id),
      storedNames: async (id) => fake.state.depositions.get(Number(id))?.files.map((file) => file.key) ?? [],
      fileReads: /\/files\/[^/]+\/content$/,
      fileWrites: { method: 'PUT', path: /^\/api\/files\// },
      stop: () => fake.stop(),
    };
  },
  { folders: false, othersPublished: true },
);
