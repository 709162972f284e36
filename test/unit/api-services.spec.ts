import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ServiceError } from '@app/common';
import { loadSettings, ProcessSettings } from '@app/config';
import { TokenCipher, type JobKind, type JobPayload } from '@app/jobs';
import { TargetsRegistry } from '@app/targets';
import { API_SETTINGS } from '../../apps/api/src/api.settings';
import { Links } from '../../apps/api/src/common/link-builder';
import type { JobStarter } from '../../apps/api/src/jobs/job-starter.service';
import { ResourcesService } from '../../apps/api/src/resources/resources.service';
import { TransfersService, type TransferRequest } from '../../apps/api/src/transfers/transfers.service';
import { filesystemEntry, fsId, writeTargetsFile, writeTree } from '../support/fs-fixtures';

/**
 * The API's services take plain arguments (no request, no response), so they run here in-process over real
 * filesystem targets, with a job starter that records what would be queued.
 */
describe('API services without HTTP', () => {
  const links = new Links('https://broker.example');
  let dir: string;
  let processSettings: ProcessSettings;
  let registry: TargetsRegistry;
  let started: { kind: JobKind; payload: Omit<JobPayload, 'ticket' | 'runId'> }[];
  let jobs: JobStarter;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'presqt-services-'));
    writeTree(join(dir, 'lab', 'alice'), { 'alpha/notes.txt': 'notes', 'alpha/data/a.csv': '1,2' });
    mkdirSync(join(dir, 'archive'));
    const lab = filesystemEntry('lab', join(dir, 'lab'), {
      supported_transfer_partners: { transfer_in: [], transfer_out: ['archive'] },
    });
    const archive = filesystemEntry('archive', join(dir, 'archive'), {
      supported_transfer_partners: { transfer_in: ['lab'], transfer_out: [] },
    });
    const settings = loadSettings(API_SETTINGS, {
      TARGETS_FILE: writeTargetsFile([lab, archive]),
      DATA_DIR: join(dir, 'data'),
      SECRET_KEY: 'unit-test-secret',
    });
    processSettings = settings.get(ProcessSettings);
    registry = TargetsRegistry.load(settings);
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  beforeEach(() => {
    started = [];
    jobs = {
      start: (kind: JobKind, _ticket: string, payload: Omit<JobPayload, 'ticket' | 'runId'>) => {
        started.push({ kind, payload });
        return Promise.resolve({});
      },
    } as unknown as JobStarter;
  });

  const cipher = () => new TokenCipher(processSettings.secretKey);
  const resources = () => new ResourcesService(registry, processSettings, jobs, cipher());
  const transfers = () => new TransfersService(registry, processSettings, jobs, cipher());

  const failure = (promise: Promise<unknown>) =>
    promise.then(
      () => {
        throw new Error('expected a ServiceError');
      },
      (error: unknown) => {
        expect(error).toBeInstanceOf(ServiceError);
        return { status: (error as ServiceError).status, message: (error as ServiceError).message };
      },
    );

  it('lists with links on the base it is given', async () => {
    const page = await resources().collection(links, 'lab', 'alice-token', {});
    expect(page.resources.map((resource) => resource.title)).toEqual(['alpha']);
    expect(page.resources[0].links[0].link).toBe(
      `https://broker.example/api_v1/targets/lab/resources/${fsId('alpha')}/`,
    );
    expect(page.pages.first_page).toBe('https://broker.example/api_v1/targets/lab/resources/?page=1');
  });

  it('refuses two search filters and an unknown token before touching anything', async () => {
    expect(
      await failure(resources().collection(links, 'lab', 'alice-token', { title: 'a', id: 'b' })),
    ).toEqual({
      status: 400,
      message: expect.stringContaining('Use only one search filter at a time'),
    });
    expect((await failure(resources().startDownload(links, 'lab', fsId('alpha'), 'nobody', ''))).status).toBe(
      401,
    );
    expect(started).toEqual([]);
  });

  it('starts a download with the token encrypted in the payload and job links on the base', async () => {
    const answer = await resources().startDownload(links, 'lab', fsId('alpha'), 'alice-token', '');
    expect(answer.download_job_zip).toBe('https://broker.example/api_v1/job_status/download.zip/');
    expect(started).toHaveLength(1);
    expect(started[0].kind).toBe('download');
    expect(JSON.stringify(started[0].payload)).not.toContain('alice-token');
  });

  const transfer = (overrides: Partial<TransferRequest> = {}): TransferRequest => ({
    destinationName: 'archive',
    containerId: null,
    sourceToken: 'alice-token',
    destinationToken: 'alice-token',
    duplicate: 'ignore',
    keywordAction: 'none',
    email: null,
    fairshare: false,
    body: { source_target_name: 'lab', source_resource_id: fsId('alpha'), keywords: [] },
    ...overrides,
  });

  it('refuses a transfer the partners do not allow, and a file as a new project, before any job', async () => {
    expect(await failure(transfers().start(links, transfer({ destinationName: 'lab' })))).toEqual({
      status: 400,
      message: "PresQT Error: 'lab' does not allow transfer to 'lab'.",
    });
    const file = transfer({
      body: {
        source_target_name: 'lab',
        source_resource_id: fsId('alpha/notes.txt'),
        keywords: [],
      },
    });
    expect((await failure(transfers().start(links, file))).message).toContain(
      'can not be uploaded as a new project',
    );
    expect(started).toEqual([]);
  });

  it('starts a transfer naming both targets, with neither token in the payload', async () => {
    const answer = await transfers().start(links, transfer({ keywordAction: 'manual' }));
    expect(answer.transfer_job).toBe('https://broker.example/api_v1/job_status/transfer/');
    expect(started).toEqual([
      {
        kind: 'transfer',
        payload: expect.objectContaining({
          sourceTargetName: 'lab',
          destinationTargetName: 'archive',
          keywordAction: 'manual',
        }),
      },
    ]);
    expect(JSON.stringify(started[0].payload)).not.toContain('alice-token');
  });
});
