import { osfConnector } from '@app/connectors/osf';
import { describeConnector, TOKEN } from '../conformance/describe-connector';
import { OsfFake } from '../fakes/osf/osf-fake';

describeConnector(osfConnector, async () => {
  const fake = await new OsfFake().start();
  const alice = fake.addUser('Alice Example', TOKEN);
  const bob = fake.addUser('Bob Other', 'bob-token');
  return {
    options: { api_url: fake.api.url, files_url: fake.files.origin },
    seedProject: async (title, files, { keywords } = {}) =>
      fake.addProject(alice, title, files, { tags: keywords }).id,
    reset: async () => fake.reset(),
    forbiddenId: async () => fake.addProject(bob, 'Bob Private').id,
    goneId: async () => Object.assign(fake.addProject(alice, 'Deleted Project'), { deleted: true }).id,
    teardown: () => fake.stop(),
  };
});
