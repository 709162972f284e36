import { zenodoConnector } from '@app/connectors/zenodo';
import { describeConnector, TOKEN } from '../conformance/describe-connector';
import { ZenodoFake } from '../fakes/zenodo/zenodo-fake';

describeConnector(zenodoConnector, async () => {
  const fake = await new ZenodoFake().start();
  // the suite sends requests far faster than a user would: a wider limit than Zenodo's keeps it from waiting
  fake.rateLimit.limit = 10_000;
  let owner = fake.addUser(TOKEN);
  const stranger = fake.addUser('bob-token');
  return {
    options: { api_url: fake.server.url },
    seedProject: async (title, files, { keywords } = {}) =>
      String(fake.seed(owner, { title, files, keywords }).id),
    reset: async () => {
      fake.reset();
      owner = fake.addUser(TOKEN);
    },
    forbiddenId: async () => String(fake.seed(stranger, { title: 'Not yours' }).id),
    goneId: async () => String(Object.assign(fake.seed(owner, { title: 'Deleted' }), { removed: true }).id),
    teardown: () => fake.stop(),
  };
});
