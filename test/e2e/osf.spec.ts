import { OsfFake } from '../fakes/osf/osf-fake';
import { ALL_ACTIONS } from '../support/fs-fixtures';
import { describeRemoteTarget } from './remote/describe-remote-target';

describeRemoteTarget('OSF', async () => {
  const fake = await new OsfFake().start();
  const alice = fake.addUser('Alice Example', 'alice-osf-token');
  return {
    // WaterButler serves and takes the files
    fake: fake.files,
    entry: {
      readable_name: 'OSF',
      status_url: `${fake.api.url}/`,
      token_url: 'https://osf.io/settings/tokens',
      supported_actions: ALL_ACTIONS,
      supported_hash_algorithms: ['sha256', 'md5'],
      infinite_depth: true,
      search_parameters: ['title', 'id', 'author', 'keywords'],
      connector: 'osf',
      options: { api_url: fake.api.url, files_url: fake.files.origin },
    },
    token: 'alice-osf-token',
    badToken: 'mallory-token',
    seedProject: async (title, files) => fake.addProject(alice, title, files).id,
    fileReads: /\/providers\/[^/]+\/[^/]+$/,
    fileWrites: { method: 'PUT', path: /\/providers\// },
    stop: () => fake.stop(),
  };
});
