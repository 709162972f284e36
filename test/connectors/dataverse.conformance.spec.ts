import { dataverseConnector } from '@app/connectors/dataverse';
import { describeConnector, TOKEN } from '../conformance/describe-connector';
import { DataverseFake } from '../fakes/dataverse/dataverse-fake';

// an installation set to SHA-512, so that the suite checks a checksum type other than the usual MD5
describeConnector(dataverseConnector, async () => {
  const fake = await new DataverseFake().start();
  const setUp = () => {
    fake.checksumType = 'SHA-512';
    return fake.addUser(TOKEN, 'Alice', 'Example');
  };
  let alice = setUp();
  const bob = fake.addUser('bob-token', 'Bob', 'Other');
  return {
    options: { api_url: fake.server.url },
    seedProject: async (title, files, { keywords } = {}) =>
      String(fake.seed(alice, { title, files, keywords }).id),
    reset: async () => {
      fake.reset();
      alice = setUp();
      fake.state.users.set(bob.token, bob);
    },
    emptyFolders: false,
    // Dataverse answers another user's unpublished dataset as not found (its `:latest` version is none the
    // user may see), so there is no 403 to test; a deaccessioned dataset is gone
    goneId: async () => String(fake.seed(alice, { title: 'Withdrawn', deaccessioned: true }).id),
    teardown: () => fake.stop(),
  };
});
