import { mkdir, mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { filesystemConnector } from '@app/connectors/filesystem';
import { describeConnector } from '../conformance/describe-connector';
import { connectorContext } from '../support/connector-context';

describeConnector(
  'filesystem',
  async () => {
    const tmp = await mkdtemp(join(tmpdir(), 'fs-conformance-'));
    const root = join(tmp, 'root');
    let seeded = 0;
    return {
      connector: filesystemConnector.create(
        { root, tokens: { 'alice-token': 'alice' }, per_page: 5 },
        connectorContext({ dataDir: tmp }),
      ),
      token: 'alice-token',
      badToken: 'mallory-token',
      perPage: 5,
      folders: true,
      search: {
        title: (project) => project.title.split(' ')[0].toLowerCase(),
        id: (project) => project.id,
        keywords: (project) => project.keywords[0],
        general: (project) => project.title.split(' ')[1],
        author: () => 'alice',
      },
      async seedProject(title, files, options = {}) {
        const dir = join(root, 'alice', title);
        await mkdir(dir, { recursive: true });
        for (const [path, content] of Object.entries(files)) {
          if (path.endsWith('/')) await mkdir(join(dir, path), { recursive: true });
          else {
            await mkdir(dirname(join(dir, path)), { recursive: true });
            await writeFile(join(dir, path), content);
          }
        }
        if (options.keywords)
          await writeFile(join(dir, '.presqt-keywords.json'), JSON.stringify(options.keywords));
        // each seeded project is newer than the one before, and older than anything made by the test itself
        seeded++;
        await utimes(dir, 1_600_000_000 + seeded, 1_600_000_000 + seeded);
        return Buffer.from(title).toString('base64url');
      },
      async reset() {
        await rm(root, { recursive: true, force: true });
        await mkdir(root, { recursive: true });
      },
      teardown: () => rm(tmp, { recursive: true, force: true }),
    };
  },
  { takesBack: { newProject: true, createdFiles: true } },
);
