import { zenodoConnector } from '@app/connectors/zenodo';
import { describeConnector } from '../conformance/describe-connector';
import { ZenodoFake } from '../fakes/zenodo/zenodo-fake';
import { connectorContext } from '../support/connector-context';

describeConnector(
  'zenodo',
  async () => {
    const fake = await new ZenodoFake().start();
    // the suite sends requests far faster than a user would: a wider limit than Zenodo's keeps it from waiting
    fake.rateLimit.limit = 10_000;
    let owner = fake.addUser('alice-token');
    const stranger = fake.addUser('bob-token');
    return {
      connector: zenodoConnector.create({ api_url: fake.server.url, per_page: 5 }, connectorContext()),
      token: 'alice-token',
      badToken: 'mallory-token',
      perPage: 5,
      folders: false,
      search: {
        general: (project) => project.title.split(' ')[1],
        title: (project) => project.title.split(' ')[0].toLowerCase(),
        id: (project) => project.id,
        keywords: (project) => project.keywords[0],
      },
      async seedProject(title, files, options = {}) {
        return String(fake.seed(owner, { title, files, keywords: options.keywords }).id);
      },
      async reset() {
        fake.reset();
        owner = fake.addUser('alice-token');
      },
      forbiddenId: async () => String(fake.seed(stranger, { title: 'Not yours' }).id),
      goneId: async () => {
        const deposition = fake.seed(owner, { title: 'Deleted' });
        deposition.removed = true;
        return String(deposition.id);
      },
      teardown: () => fake.stop(),
    };
  },
  { takesBack: { newProject: true, createdFiles: true } },
);
