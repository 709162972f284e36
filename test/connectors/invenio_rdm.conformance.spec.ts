import { invenioRdmConnector } from '@app/connectors/invenio_rdm';
import { describeConnector, TOKEN } from '../conformance/describe-connector';
import { InvenioFake } from '../fakes/invenio_rdm/invenio-fake';

describeConnector(invenioRdmConnector, async () => {
  const fake = await new InvenioFake().start();
  const setUp = () => ({
    alice: fake.addUser(TOKEN, 'Alice Example'),
    bob: fake.addUser('bob-token', 'Bob Other'),
  });
  let users = setUp();
  return {
    options: { api_url: `${fake.server.url}/` },
    seedProject: async (title, files, { keywords } = {}) =>
      fake.seed(users.alice, { title, files, keywords }).id,
    reset: async () => {
      fake.reset();
      users = setUp();
    },
    // another user's draft: the draft refuses with 403, and it has no published version anyone may read
    forbiddenId: async () => fake.seed(users.bob, { title: 'Not yours' }).id,
    goneId: async () =>
      Object.assign(fake.seed(users.alice, { title: 'Deleted', published: true }), { deleted: true }).id,
    teardown: () => fake.stop(),
  };
});
