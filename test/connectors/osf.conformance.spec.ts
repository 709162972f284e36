import { osfConnector } from '@app/connectors/osf';
import { describeConnector } from '../conformance/describe-connector';
import { connectorContext } from '../support/connector-context';
import { OsfFake } from '../fakes/osf/osf-fake';

describeConnector(
  'osf',
  async () => {
    const fake = await new OsfFake().start();
    const alice = fake.addUser('Alice Example', 'alice-token');
    const bob = fake.addUser('Bob Other', 'bob-token');
    const perPage = 4;
    return {
      connector: osfConnector.create(
        { api_url: fake.api.url, files_url: fake.files.origin, per_page: perPage },
        connectorContext(),
      ),
      token: 'alice-token',
      badToken: 'mallory-token',
      perPage,
      folders: true,
      search: {
        title: (project) => project.title.split(' ')[0],
        id: (project) => project.id,
        keywords: (project) => project.keywords[0],
        author: () => 'Alice',
      },
      async seedProject(title, files, options = {}) {
        return fake.addProject(alice, title, files, { tags: options.keywords }).id;
      },
      async reset() {
        fake.reset();
      },
      forbiddenId: async () => fake.addProject(bob, 'Bob Private').id,
      goneId: async () => {
        const node = fake.addProject(alice, 'Deleted Project');
        node.deleted = true;
        return node.id;
      },
      teardown: () => fake.stop(),
    };
  },
  { takesBack: { newProject: true, createdFiles: false } },
);
