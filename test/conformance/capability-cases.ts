import { createHash } from 'node:crypto';
import { packedZipName, SEARCH_FILTERS, type RemoteFile } from '@app/connectors';
import { readAll, statusOf } from '../support/connector-failures';
import { checksum, contents, incoming, itWhen, put, walked, type Suite } from './suite';

/**
 * The abilities a connector declares (ConnectorCapabilities), as rclone's fstests reads a backend's
 * `fs.Features`: each is tested where it is declared and skipped where it is not, and the code must keep to
 * the declaration (an optional method is there exactly when its ability is declared).
 */
export function capabilityCases(suite: Suite): void {
  const declared = suite.capabilities;
  it('has the optional methods of the abilities it declares, and no others', () => {
    expect({
      claimedProject: typeof suite.session.claimedProject,
      fileSizeProblem: typeof suite.connector.fileSizeProblem,
    }).toEqual({
      claimedProject: declared.claimedProjects ? 'function' : 'undefined',
      fileSizeProblem: declared.maxFileBytes === null ? 'undefined' : 'function',
    });
  });

  const undeclared = SEARCH_FILTERS.filter((filter) => !declared.searchFilters.includes(filter));
  itWhen(undeclared.length > 0)('answers 400 for each search filter it does not declare', async () => {
    await suite.target.seedProject('Searched', { 'a.txt': 'a' });
    for (const filter of undeclared) {
      const status = await statusOf(suite.session.listResources({ search: { filter, value: 'a' }, page: 1 }));
      expect({ filter, status }).toEqual({ filter, status: 400 });
    }
  });

  itWhen(declared.claimedProjects)(
    'finds the project made with a claim again, and none for another claim',
    async () => {
      const { session } = suite;
      const claim = 'a'.repeat(64);
      const made = await session.createProject('Claimed', claim);
      await session.createProject('Claimed', 'b'.repeat(64));
      expect(await session.claimedProject!(claim)).toEqual(made);
      expect(await session.claimedProject!('c'.repeat(64))).toBeNull();
    },
  );

  itWhen(declared.maxFileBytes !== null)(
    'refuses a file above its size limit before reading it',
    async () => {
      const { connector, session } = suite;
      const limit = declared.maxFileBytes!;
      expect(connector.fileSizeProblem!(limit)).toBeNull();
      expect(connector.fileSizeProblem!(limit + 1)).toEqual(expect.any(String));
      const project = await session.createProject('Too Large');
      const writer = await session.openWriter(project.id, { newProject: true, message: 'conformance' });
      const unread = {
        size: limit + 1,
        open: () => Promise.reject(new Error('a file refused for its size was read')),
      };
      expect(await statusOf(writer.putFile(['large.bin'], unread, 'ignore'))).toBe(400);
    },
  );

  itWhen(declared.gitLfs)(
    "serves a file kept in Git LFS as its object's content, size and sha256",
    async () => {
      const content = Buffer.alloc(200_000);
      for (let i = 0; i < content.length; i++) content[i] = (i * 31 + (i >> 11)) & 0xff;
      const sha256 = createHash('sha256').update(content).digest('hex');
      // a file of a pointer's size, which is none
      const notes = 'n'.repeat(150);
      const id = await suite.target.seedProject(
        'Large',
        { '.gitattributes': '*.bin filter=lfs diff=lfs merge=lfs -text\n', 'notes.txt': notes },
        { lfs: { 'data/big.bin': content } },
      );
      const files = (await walked(suite.session, id)).filter(
        (entry): entry is RemoteFile => entry.kind === 'file',
      );
      const big = files.find((file) => file.path === 'Large/data/big.bin')!;
      expect(big.size).toBe(content.length);
      expect((await readAll(await big.open())).equals(content)).toBe(true);
      const vouched = await big.sourceHashes(suite.connector.hashAlgorithms);
      expect(vouched.sha256).toBe(sha256);
      for (const [algorithm, value] of Object.entries(vouched))
        expect(value).toBe(checksum(algorithm, content));
      const small = files.find((file) => file.path === 'Large/notes.txt')!;
      expect((await readAll(await small.open())).toString()).toBe(notes);
      const folder = (await suite.session.getResource(id)).children.find((child) => child.title === 'data')!;
      const child = (await suite.session.getResource(folder.id)).children[0];
      expect((await suite.session.getResource(child.id)).hashes.sha256).toBe(sha256);
    },
  );

  itWhen(declared.zippedFolders)(
    'keeps files written in folders as one zip, which walks unpack again',
    async () => {
      const { session } = suite;
      const project = await session.createProject('Zipped');
      const files = { 'top.txt': 'top', 'data/raw/values.csv': 'x,y\n' };
      await put(session, project.id, files, 'ignore', true);
      const { title, children } = await session.getResource(project.id);
      expect(children.map((child) => child.title)).toEqual([packedZipName(title)]);
      expect(await contents(session, project.id)).toEqual({
        [`${title}/top.txt`]: 'top',
        [`${title}/data/raw/values.csv`]: 'x,y\n',
      });
    },
  );
}

/** What a writer's abandon takes back of a failed or cancelled job (ConnectorCapabilities.takesBack...). */
export function takeBackCases(suite: Suite): void {
  const { takesBackNewProjects, takesBackCreatedFiles } = suite.capabilities;
  it('has a writer that takes back what it declares, and no writer that takes back more', async () => {
    const { session } = suite;
    const project = await session.createProject('Declared');
    const made = await session.openWriter(project.id, { newProject: true, message: 'conformance' });
    const existing = await session.openWriter(project.id, { newProject: false, message: 'conformance' });
    expect({
      takesBackNewProjects: typeof made.abandon === 'function',
      takesBackCreatedFiles: typeof existing.abandon === 'function',
    }).toEqual({ takesBackNewProjects, takesBackCreatedFiles });
  });

  itWhen(takesBackNewProjects)(
    'takes back a project made for a job, with what the job stored in it',
    async () => {
      const { session } = suite;
      const project = await session.createProject('Taken back');
      const writer = await session.openWriter(project.id, { newProject: true, message: 'conformance' });
      await writer.putFile(['a.txt'], incoming('a'), 'ignore');
      await writer.abandon!();
      expect([404, 410]).toContain(await statusOf(session.getResource(project.id)));
      const listed = await session.listResources({ page: 1 });
      expect(listed.resources.map((resource) => resource.id)).not.toContain(project.id);
    },
  );

  itWhen(takesBackCreatedFiles)(
    "takes back the files a job created in a project, a killed run's too",
    async () => {
      const { session } = suite;
      const id = await suite.target.seedProject('Kept', { 'old.txt': 'old' });
      const before = await contents(session, id);
      const killed = await session.openWriter(id, { newProject: false, message: 'conformance' });
      const staged = (await killed.putFile(['one.txt'], incoming('1'), 'ignore')).staged;
      const resumed = await session.openWriter(id, { newProject: false, message: 'conformance' });
      resumed.restage(staged === undefined ? [] : [staged]);
      await resumed.putFile(['two.txt'], incoming('2'), 'ignore');
      await resumed.abandon!();
      expect(await contents(session, id)).toEqual(before);
    },
  );
}
