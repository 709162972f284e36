import { figshareConnector } from '@app/connectors/figshare';
import { describeConnector, TOKEN } from '../conformance/describe-connector';
import { FigshareFake } from '../fakes/figshare/figshare-fake';

describeConnector(figshareConnector, async () => {
  const fake = await new FigshareFake().start();
  let owner = fake.addUser(TOKEN);
  return {
    options: { api_url: fake.server.url, files_url: fake.downloads.url },
    // a project's files are those of its own article, titled like it
    seedProject: async (title, files, { keywords: tags } = {}) =>
      String(fake.seedProject(owner, { title, articles: [{ title, files, tags }] }).id),
    reset: async () => {
      fake.reset();
      owner = fake.addUser(TOKEN);
    },
    forbiddenId: async () => String(fake.seedProject(fake.addUser('bob-token'), { title: 'Not yours' }).id),
    teardown: () => fake.stop(),
  };
});
