import { figshareConnector } from '@app/connectors/figshare';
import { describeConnector } from '../conformance/describe-connector';
import { FigshareFake } from '../fakes/figshare/figshare-fake';
import { connectorContext } from '../support/connector-context';

describeConnector(
  'figshare',
  async () => {
    const fake = await new FigshareFake().start();
    let owner = fake.addUser('alice-token');
    return {
      connector: figshareConnector.create(
        { api_url: fake.server.url, files_url: fake.downloads.url, per_page: 5 },
        connectorContext(),
      ),
      token: 'alice-token',
      badToken: 'mallory-token',
      perPage: 5,
      folders: false,
      search: {
        general: (project) => project.title.split(' ')[1],
        title: (project) => project.title.split(' ')[0].toLowerCase(),
        id: (project) => project.id,
      },
      // a project's files are those of its own article, titled like it
      async seedProject(title, files, options = {}) {
        const articles = [{ title, files, tags: options.keywords }];
        return String(fake.seedProject(owner, { title, articles }).id);
      },
      async reset() {
        fake.reset();
        owner = fake.addUser('alice-token');
      },
      forbiddenId: async () => String(fake.seedProject(fake.addUser('bob-token'), { title: 'Not yours' }).id),
      teardown: () => fake.stop(),
    };
  },
  { takesBack: { newProject: true, createdFiles: true } },
);
