import { OsfFake, OTHER_REGION } from '../fakes/osf/osf-fake';
import { describeRemoteTarget, type RemoteTargetUnderTest } from './remote/describe-remote-target';
import { osfEntry } from './remote/osf-entry';

/**
 * OSF with the user's projects, and those uploads make, in the default storage region or in another one,
 * whose file service is another origin that the target lists in `files_urls`.
 */
async function osfTarget(region?: string): Promise<RemoteTargetUnderTest> {
  const fake = await new OsfFake().start();
  const alice = fake.addUser('Alice Example', 'alice-osf-token');
  const bob = fake.addUser('Bob Example', 'bob-osf-token');
  if (region) alice.defaultRegion = region;
  return {
    // WaterButler of the projects' region serves and takes the files
    fake: region ? fake.regionalFiles : fake.files,
    entry: osfEntry(fake, region ? [fake.regionalFiles.origin] : undefined),
    token: 'alice-osf-token',
    badToken: 'mallory-token',
    seedProject: async (title, files) => fake.addProject(alice, title, files).id,
    seedOthersPublished: async (title, files) =>
      fake.addProject(bob, title, files, { public: true, region }).id,
    fileReads: /\/providers\/[^/]+\/[^/]+$/,
    fileWrites: { method: 'PUT', path: /\/providers\// },
    stop: () => fake.stop(),
  };
}

describeRemoteTarget('OSF', () => osfTarget(), { othersPublished: true });
describeRemoteTarget(`OSF (storage region ${OTHER_REGION})`, () => osfTarget(OTHER_REGION));
