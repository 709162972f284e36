import { benchTarget } from './bench-stack';
import type { FakeServer } from '../test/fakes/fake-server';
import { FigshareFake } from '../test/fakes/figshare/figshare-fake';
import { FakeGitHub } from '../test/fakes/github/fake-github';
import { FakeGitlab } from '../test/fakes/gitlab/fake-gitlab';
import { OsfFake } from '../test/fakes/osf/osf-fake';
import { ZenodoFake } from '../test/fakes/zenodo/zenodo-fake';

/** A remote target of the bench: its targets-file entry, pointing at a fake upstream on this machine. */
export interface BenchRemote {
  name: string;
  entry: Record<string, unknown>;
  token: string;
  stop(): Promise<void>;
}

export const REMOTE_TOKEN = 'bench-remote-token';

/**
 * The fakes of the test suite as the bench's remote targets, each answering `latencyMs` later than it could,
 * as a repository on the internet would. They keep what is written in memory.
 */
export async function startRemoteTargets(latencyMs: number, partners: string[]): Promise<BenchRemote[]> {
  const slow = (servers: FakeServer[]) => servers.forEach((server) => (server.latencyMs = latencyMs));
  const github = await FakeGitHub.start();
  github.addAccount('bench', { token: REMOTE_TOKEN });
  const gitlab = await new FakeGitlab().start();
  gitlab.addUser('bench', REMOTE_TOKEN);
  const osf = await new OsfFake().start();
  osf.addUser('Bench User', REMOTE_TOKEN);
  const zenodo = await new ZenodoFake().start();
  zenodo.rateLimit.limit = 1_000_000;
  zenodo.addUser(REMOTE_TOKEN);
  const figshare = await new FigshareFake().start();
  figshare.addUser(REMOTE_TOKEN);
  slow([
    github.server,
    gitlab.server,
    ...osf.servers,
    zenodo.server,
    figshare.server,
    figshare.uploads,
    figshare.downloads,
  ]);
  const remote = (
    name: string,
    options: Record<string, unknown>,
    stop: () => Promise<void>,
  ): BenchRemote => ({
    name,
    token: REMOTE_TOKEN,
    stop,
    entry: benchTarget(
      name,
      name,
      options,
      { transfer_in: partners, transfer_out: partners },
      // targets without folders
      { infinite_depth: name !== 'zenodo' && name !== 'figshare' },
    ),
  });
  return [
    remote('github', { api_url: github.server.url }, () => github.stop()),
    remote('gitlab', { api_url: gitlab.url }, () => gitlab.stop()),
    remote('osf', { api_url: osf.api.url, files_url: osf.files.origin }, () => osf.stop()),
    remote('zenodo', { api_url: zenodo.server.url }, () => zenodo.stop()),
    remote('figshare', { api_url: figshare.server.url, files_url: figshare.downloads.url }, () =>
      figshare.stop(),
    ),
  ];
}
