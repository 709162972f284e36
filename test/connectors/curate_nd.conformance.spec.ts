import { curateNdConnector } from '@app/connectors/curate_nd';
import { describeConnector, TOKEN } from '../conformance/describe-connector';
import { FakeCurateNd } from '../fakes/curate_nd/fake-curate-nd';

describeConnector(curateNdConnector, async () => {
  const fake = await new FakeCurateNd().start();
  return {
    options: { api_url: fake.url },
    seedProject: async (title, files, { keywords: subjects } = {}) =>
      fake.addWork({ title, owner: 'alice', subjects, files }),
    reset: async () => {
      fake.reset();
      fake.addUser(TOKEN, 'alice');
      fake.addUser('bob-token', 'bob');
    },
    forbiddenId: async () => fake.addWork({ title: "Bob's private work", owner: 'bob' }),
    teardown: () => fake.stop(),
  };
});
