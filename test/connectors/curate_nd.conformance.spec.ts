import { curateNdConnector } from '@app/connectors/curate_nd';
import { describeConnector } from '../conformance/describe-connector';
import { FakeCurateNd } from '../fakes/curate_nd/fake-curate-nd';
import { connectorContext } from '../support/connector-context';

describeConnector(
  'curate_nd',
  async () => {
    const fake = await new FakeCurateNd().start();
    return {
      connector: curateNdConnector.create({ api_url: fake.url, per_page: 5 }, connectorContext()),
      token: 'alice-token',
      badToken: 'mallory-token',
      perPage: 5,
      folders: false,
      search: {
        // a subject is one of the text fields CurateND's general search looks in
        general: (project) => project.keywords[0],
        title: (project) => project.title.split(' ')[1].toLowerCase(),
        id: (project) => project.id,
      },
      async seedProject(title, files, options = {}) {
        return fake.addWork({ title, owner: 'alice', subjects: options.keywords, files });
      },
      async reset() {
        fake.reset();
        fake.addUser('alice-token', 'alice');
        fake.addUser('bob-token', 'bob');
      },
      forbiddenId: async () => fake.addWork({ title: "Bob's private work", owner: 'bob' }),
      teardown: () => fake.stop(),
    };
  },
  { readOnly: true },
);
