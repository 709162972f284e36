import { FigshareFake } from '../fakes/figshare/figshare-fake';
import { ALL_ACTIONS } from '../support/fs-fixtures';
import { describeRemoteTarget } from './remote/describe-remote-target';

/**
 * FigShare keeps no folders: the round trip goes through one zip of a bag and comes back as the same tree.
 * Files are read from its file host and sent to its upload service, each a host of its own.
 */
describeRemoteTarget(
  'FigShare',
  async () => {
    const fake = await new FigshareFake().start();
    const owner = fake.addUser('alice-figshare-token');
    const other = fake.addUser('bob-figshare-token');
    return {
      fake: fake.server,
      readsHost: fake.downloads,
      writesHost: fake.uploads,
      entry: {
        readable_name: 'FigShare',
        status_url: `${fake.server.url}/projects`,
        token_url: 'https://figshare.com/account/applications',
        supported_actions: ALL_ACTIONS,
        supported_hash_algorithms: ['md5'],
        infinite_depth: false,
        search_parameters: ['general', 'title', 'id'],
        connector: 'figshare',
        options: { api_url: fake.server.url, files_url: fake.downloads.url },
      },
      token: 'alice-figshare-token',
      badToken: 'mallory-token',
      seedProject: async (title, files) =>
        String(fake.seedProject(owner, { title, articles: [{ title, files }] }).id),
      seedOthersPublished: async (title, files) =>
        String(fake.seedProject(other, { title, published: true, articles: [{ title, files }] }).id),
      storedNames: async (id) =>
        fake.project(Number(id))?.articles.flatMap((article) => article.files.map((file) => file.name)) ?? [],
      fileReads: /^\/files\//,
      fileWrites: { method: 'PUT', path: /^\/upload\// },
      stop: () => fake.stop(),
    };
  },
  { folders: false, othersPublished: true },
);
