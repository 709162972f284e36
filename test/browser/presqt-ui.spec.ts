import { randomBytes } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { FakeFairEvaluator } from '../fakes/fair-evaluator/fake-fair-evaluator';
import { makeBagZip, zipOf } from '../support/bags';
import type { TestServer } from '../support/closing-server';
import { startFakeFairshake, type FakeFairshake } from '../support/fake-fairshake';
import { startFakeProposer, type FakeProposer } from '../support/fake-proposer';
import { filesystemEntry, fsId, writeTargetsFile, writeTree } from '../support/fs-fixtures';
import { extractZip, verifyBagZip } from '../support/jobs';
import { startStack, type Stack } from '../support/stack';
import {
  builtApiAddress,
  CHROMIUM,
  CLIENT_CACHE,
  clientIsBuilt,
  selfSignedCertificate,
  startClientSite,
  startTlsFront,
} from './client-site';
import { BrowserWatch } from './browser-watch';

/**
 * The PresQT web client (presqt-ui, built by test/browser/build-client.sh into a cache outside this
 * repository) in headless Chromium, against the real API, worker and Redis behind TLS, walking every flow a
 * researcher has. Skipped when the built client or Chromium is missing (docs/web-client.md#proof-in-a-browser). Each step leaves a screenshot in `<cache>/screenshots/`.
 */
const runnable = clientIsBuilt() && existsSync(CHROMIUM);
// a step waits for jobs over hundreds of megabytes, sent by the browser through TLS
jest.setTimeout(180_000);
const describeWithClient = runnable ? describe : describe.skip;

const TOKEN = 'alice-token';
const FAIRSHAKE_TOKEN = 'fairshake-key';
const SCREENSHOTS = join(CLIENT_CACHE, 'screenshots');
/** a project big enough that a cancel clicked as its job starts lands while the job runs */
const BIG_FILES = 40;
const BIG_FILE_BYTES = 8 << 20;

/** Both targets are filesystem targets under names the client has icons for. */
function clientTargets(): { targetsFile: string; osfRoot: string; githubRoot: string } {
  const osfRoot = mkdtempSync(join(tmpdir(), 'presqt-ui-osf-'));
  const githubRoot = mkdtempSync(join(tmpdir(), 'presqt-ui-github-'));
  const big: Record<string, Buffer> = {};
  for (let i = 0; i < BIG_FILES; i++) big[`alice/Big Survey/part-${i}.bin`] = randomBytes(BIG_FILE_BYTES);
  writeTree(osfRoot, {
    'alice/Soil Study/README.md': '# Soil\nSoil moisture readings from the north field.\n',
    'alice/Soil Study/data/readings.csv': 'site,value\nA,1\nB,2\n',
    'alice/Soil Study/.presqt-keywords.json': JSON.stringify(['soil', 'water', 'ecology']),
    'alice/Ocean Survey/.presqt-keywords.json': JSON.stringify(['ocean']),
    'alice/Forest Plots/.presqt-keywords.json': JSON.stringify(['forest']),
    'alice/Ocean Survey/notes.txt': 'waves\n',
    'alice/Forest Plots/plots.csv': 'plot,trees\n1,40\n',
    ...big,
  });
  writeTree(githubRoot, { 'alice/Archive/about.txt': 'the archive\n' });
  const partners = (names: string[]) => ({ transfer_in: names, transfer_out: names });
  const targetsFile = writeTargetsFile([
    filesystemEntry('osf', osfRoot, {
      readable_name: 'OSF',
      supported_transfer_partners: partners(['github']),
      // a small page so that the pager shows
      options: { root: osfRoot, tokens: { [TOKEN]: 'alice' }, per_page: 3 },
    }),
    filesystemEntry('github', githubRoot, {
      readable_name: 'GitHub',
      supported_transfer_partners: partners(['osf']),
      options: { root: githubRoot, tokens: { [TOKEN]: 'alice' } },
    }),
  ]);
  return { targetsFile, osfRoot, githubRoot };
}

const SUITE = 'the PresQT web client in Chromium, against the real API and worker';

describeWithClient(SUITE, () => {
  let stack: Stack;
  let tlsFront: TestServer;
  let site: TestServer;
  let browser: Browser;
  let page: Page;
  let watch: BrowserWatch;
  let evaluator: FakeFairEvaluator;
  let proposer: FakeProposer;
  let fairshake: FakeFairshake;
  let roots: { osfRoot: string; githubRoot: string };
  let downloads: string;
  let shots = 0;

  /** A screenshot of the page as the step left it, numbered in walking order. */
  const screenshot = (name: string) =>
    page.screenshot({ path: join(SCREENSHOTS, `${String(++shots).padStart(2, '0')}-${name}.png`) });

  beforeAll(async () => {
    rmSync(SCREENSHOTS, { recursive: true, force: true });
    mkdirSync(SCREENSHOTS, { recursive: true });
    downloads = mkdtempSync(join(tmpdir(), 'presqt-ui-downloads-'));
    evaluator = await new FakeFairEvaluator().start();
    const certificate = selfSignedCertificate();
    // the proposer fetches the bag from the API's public (TLS) address
    proposer = await startFakeProposer({ trustedCertificate: certificate.cert });
    fairshake = await startFakeFairshake(FAIRSHAKE_TOKEN);
    const targets = clientTargets();
    roots = targets;
    const client = await startClientSite(certificate);
    site = client;
    const api = builtApiAddress();
    stack = await startStack({
      env: {
        TARGETS_FILE: targets.targetsFile,
        PUBLIC_BASE_URL: `https://${api.host}:${api.port}`,
        CORS_ORIGINS: client.origin,
        FAIRSHARE_EVALUATOR_URL: evaluator.evaluateUrl,
        EMULATION_API_URL: proposer.url,
        FAIRSHAKE_URL: fairshake.url,
        FAIRSHAKE_TOKEN,
      },
    });
    tlsFront = await startTlsFront(certificate, api.port, Number(stack.env.PORT));
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      // this machine has no network beyond loopback: no background connections, no sandbox as root
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    const context = await browser.newContext({
      ignoreHTTPSErrors: true,
      acceptDownloads: true,
      viewport: { width: 1400, height: 900 },
    });
    page = await context.newPage();
    watch = new BrowserWatch(page, `https://${api.host}:${api.port}`);
    await page.goto(`${client.origin}/ui/`);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await tlsFront?.close();
    await site?.close();
    await stack?.stop();
    await evaluator?.stop();
    await proposer?.close();
    await fairshake?.close();
  });

  afterEach(async () => {
    const step = expect.getState().currentTestName?.slice(SUITE.length + 1) ?? 'step';
    await screenshot(step.replace(/[^a-z0-9]+/gi, '-').slice(0, 60));
  });

  it('loads the catalogue: targets, services, statuses, FAIRshare tests and the banner', async () => {
    await page.getByAltText('OSF').waitFor();
    await page.getByAltText('GitHub').waitFor();
    await watch.settled();
    expect(watch.apiCalls()).toEqual(
      expect.arrayContaining([
        'GET /api_v1/targets/',
        'GET /api_v1/services/',
        'GET /api_v1/statuses/',
        'GET /api_v1/services/fairshare/evaluator/',
        'GET /announcements.json',
      ]),
    );
    watch.expectClean();
  });

  it('connects with a token and lists the projects, a page at a time', async () => {
    await connect();
    await expect(visibleTitles()).resolves.toEqual(['Big Survey', 'Forest Plots', 'Ocean Survey']);
    await page.getByRole('button', { name: 'Go to page 2' }).click();
    await page.getByText('Soil Study').waitFor();
    await expect(visibleTitles()).resolves.toEqual(['Soil Study']);
    expect(watch.apiCalls()).toContain('GET /api_v1/targets/osf/resources/?page=2');
    watch.expectClean();
  });

  it('searches in general and by title, and refreshes back to the whole list', async () => {
    const search = page.locator('#outlined-basic');
    await search.fill('Ocean Survey');
    await search.press('Enter');
    await page.getByText('Forest Plots').waitFor({ state: 'detached' });
    await expect(visibleTitles()).resolves.toEqual(['Ocean Survey']);
    expect(watch.apiCalls()).toContain('GET /api_v1/targets/osf/resources?general=Ocean%20Survey');
    await page.locator('.MuiInputAdornment-positionStart svg').click();
    await page.getByRole('menuitem', { name: 'Title' }).click();
    await search.fill('Soil Study');
    await search.press('Enter');
    await page.getByText('Soil Study').waitFor();
    await expect(visibleTitles()).resolves.toEqual(['Soil Study']);
    expect(watch.apiCalls()).toContain('GET /api_v1/targets/osf/resources?title=Soil+Study');
    await search.fill('');
    await page.locator('[title="Refresh user\'s resources"]').click();
    await page.getByText('Big Survey').waitFor();
    await expect(visibleTitles()).resolves.toEqual(['Big Survey', 'Forest Plots', 'Ocean Survey']);
    expect(watch.apiCalls()).toContain('GET /api_v1/targets/osf/resources/');
    watch.expectClean();
  });

  it('opens a project, its folder and a file, showing details and children', async () => {
    await openResource('Soil Study');
    await page.getByText('data', { exact: true }).waitFor();
    await expect(visibleTitles()).resolves.toEqual(['Soil Study', 'data', 'README.md']);
    await openResource('data');
    await page.getByText('readings.csv').waitFor();
    await openResource('readings.csv');
    await expect(pageText()).resolves.toMatch(/Kind Name\s+file/);
    expect(watch.apiCalls()).toContain(
      `GET /api_v1/targets/osf/resources/${fsId('Soil Study/data/readings.csv')}/`,
    );
    watch.expectClean();
  });

  it('downloads a project as a bag, saved by the browser and valid', async () => {
    await openResource('Soil Study');
    const saved = page.waitForEvent('download', { timeout: 60_000 });
    await startFromModal('Download', ['Next', 'Download']);
    const download = await saved;
    const zipName = download.suggestedFilename();
    expect(zipName).toBe(`osf_download_${fsId('Soil Study')}.zip`);
    const zipFile = join(downloads, zipName);
    await download.saveAs(zipFile);
    verifyBagZip(zipFile, zipName.replace(/\.zip$/, ''));
    const bag = join(extractZip(zipFile), zipName.replace(/\.zip$/, ''));
    expect(readFileSync(join(bag, 'data/Soil Study/data/readings.csv'), 'utf8')).toBe(
      'site,value\nA,1\nB,2\n',
    );
    await page.getByText('Download successful.').waitFor();
    watch.expectClean();
  });

  it('cancels a download while it runs', async () => {
    await closeModal();
    await openResource('Big Survey');
    await startFromModal('Download', ['Next', 'Download']);
    await page.getByRole('button', { name: 'Cancel' }).click();
    await page.getByText('Download was cancelled by the user', { exact: true }).waitFor();
    // the page's last status polls answer the cancelled job's 500 after the message shows: count them here
    await watch.settled();
    watch.expectClean([{ status: 500, path: /^GET \/api_v1\/job_status\/download(\.zip)?\// }]);
  });

  it('uploads a bag as a new project', async () => {
    await closeModal();
    const bag = await bagFile('field-notes.zip', {
      'Field Notes/day1.txt': 'rain\n',
      'Field Notes/gps/track.csv': 'lat,lon\n',
    });
    await page.getByRole('button', { name: 'Create New Project' }).click();
    await page.locator('#contained-button-file').setInputFiles(bag);
    await clickInModal(['Next', 'Next', 'Upload']);
    await page.getByText('Click Here for Uploaded Resource').waitFor({ timeout: 60_000 });
    expect(readFileSync(join(roots.osfRoot, 'alice/Field Notes/gps/track.csv'), 'utf8')).toBe('lat,lon\n');
    await watch.settled();
    // the browser refreshed the list after the upload
    expect(watch.apiCalls()).toContain('GET /api_v1/targets/osf/resources/');
    watch.expectClean();
  });

  it('uploads a bag into a folder of a project', async () => {
    await closeModal();
    await openResource('Soil Study');
    await openResource('data');
    const bag = await bagFile('more-readings.zip', { 'more/readings-2.csv': 'site,value\nC,3\n' });
    await page.getByRole('button', { name: 'Upload', exact: true }).first().click();
    await page.locator('#contained-button-file').setInputFiles(bag);
    await clickInModal(['Next', 'Next', 'Next', 'Upload']);
    await page.getByText('Click Here for Uploaded Resource').waitFor({ timeout: 60_000 });
    expect(readFileSync(join(roots.osfRoot, 'alice/Soil Study/data/more/readings-2.csv'), 'utf8')).toBe(
      'site,value\nC,3\n',
    );
    watch.expectClean();
  });

  it('cancels an upload while it runs, leaving nothing at the target', async () => {
    await closeModal();
    const files: Record<string, Buffer> = {};
    for (let i = 0; i < BIG_FILES; i++) files[`Cancelled Upload/part-${i}.bin`] = randomBytes(BIG_FILE_BYTES);
    const bag = await bagFile('big.zip', files);
    await page.getByRole('button', { name: 'Create New Project' }).click();
    await page.locator('#contained-button-file').setInputFiles(bag);
    // the modal offers Cancel while the bag is still being sent, before there is a job to cancel
    const polled = page.waitForResponse(/\/job_status\/upload\//, { timeout: 60_000 });
    await clickInModal(['Next', 'Next', 'Upload']);
    await polled;
    await page.getByRole('button', { name: 'Cancel' }).click();
    await page
      .getByText('Upload was cancelled by the user. Some resources may have still been uploaded.', {
        exact: true,
      })
      .waitFor();
    await expect(takenBack(join(roots.osfRoot, 'alice/Cancelled Upload'))).resolves.toBe(true);
    await watch.settled();
    watch.expectClean([{ status: 500, path: /^GET \/api_v1\/job_status\/upload\// }]);
  });

  it('transfers a project to the other target with automatic keywords', async () => {
    await closeModal();
    await transferOut('Soil Study', { keywords: 'Automatic Enhancement' });
    await page.getByText('Transfer successful.').waitFor();
    expect(readFileSync(join(roots.githubRoot, 'alice/Soil Study/data/readings.csv'), 'utf8')).toBe(
      'site,value\nA,1\nB,2\n',
    );
    // the source's keywords and their enhancements, carried to the destination
    const carried = keywordsAt(roots.githubRoot, 'Soil Study');
    expect(carried).toEqual(expect.arrayContaining(['soil', 'water', 'ecology', 'biology']));
    expect(carried).not.toContain('filth');
    await page.getByText('The following keywords have been added:').waitFor();
    watch.expectClean();
  });

  it('transfers a project into a folder at the destination with keywords chosen by hand', async () => {
    await closeModal();
    await transferOut('Forest Plots', {
      keywords: 'Manual Enhancement',
      into: 'Archive',
      beforeKeywordsStep: async () => {
        const dialog = page.locator('[role=dialog]');
        await dialog.getByText('Select the following keyword suggestions to enhance:').waitFor();
        await dialog.getByText('biome', { exact: true }).click();
        const own = dialog.locator('.MuiCollapse-entered input[type=text]');
        await own.fill('canopy');
        await own.press('Enter');
      },
    });
    await page.getByText('Transfer successful.').waitFor();
    expect(readFileSync(join(roots.githubRoot, 'alice/Archive/Forest Plots/plots.csv'), 'utf8')).toBe(
      'plot,trees\n1,40\n',
    );
    // keywords belong to projects: the destination project gets the source's and those chosen
    expect(keywordsAt(roots.githubRoot, 'Archive')).toEqual(
      expect.arrayContaining(['forest', 'biome', 'canopy']),
    );
    watch.expectClean();
  });

  it('transfers a project without touching its keywords', async () => {
    await closeModal();
    await transferOut('Ocean Survey', { keywords: 'No Enhancement' });
    await page.getByText('Transfer successful.').waitFor();
    expect(readFileSync(join(roots.githubRoot, 'alice/Ocean Survey/notes.txt'), 'utf8')).toBe('waves\n');
    expect(keywordsAt(roots.osfRoot, 'Ocean Survey')).toEqual(['ocean']);
    watch.expectClean();
  });

  it('cancels a transfer while it runs, leaving nothing at the destination', async () => {
    await closeModal();
    const polled = page.waitForResponse(/\/job_status\/transfer\//, { timeout: 60_000 });
    await transferOut('Big Survey', { keywords: 'No Enhancement' });
    await polled;
    // the client's defect (docs/web-client.md#deploying-it): after the cancel it refreshes the destination with its arguments shifted
    const shiftedRefresh = page.waitForResponse(/\/targets\/github\/resources\?page=alice-token$/);
    await page.getByRole('button', { name: 'Cancel' }).click();
    await page.getByText('Transfer is being cancelled...').waitFor();
    expect((await shiftedRefresh).status()).toBe(400);
    const job = await fetch(`${stack.baseUrl}/api_v1/job_status/transfer/`, {
      headers: { 'presqt-source-token': TOKEN, 'presqt-destination-token': TOKEN },
    });
    expect(job.status).toBe(500);
    await expect(job.json()).resolves.toMatchObject({
      status_code: '499',
      message: 'Transfer was cancelled by the user',
    });
    await expect(takenBack(join(roots.githubRoot, 'alice/Big Survey'))).resolves.toBe(true);
    await screenshot('transfer-cancel-as-the-client-leaves-it');
    // the client now repeats that refresh without end: start again from a fresh page
    await page.reload();
    await connect();
    watch.expectClean([
      { status: 500, path: /^GET \/api_v1\/job_status\/transfer\// },
      { status: 400, path: /^GET \/api_v1\/targets\/github\/resources\?page=alice-token$/ },
      { status: 0, path: /^GET \/api_v1\/targets\/github\/resources\?page=alice-token$/ },
    ]);
  });

  it("enhances a project's keywords with the Keyword Enhancement service", async () => {
    await openResource('Soil Study');
    await chooseService('Keyword Enhancement');
    const dialog = page.locator('[role=dialog]');
    await dialog.getByText('biology', { exact: true }).click();
    await clickInModal(['Next', 'Enhance Keywords']);
    await page.getByText('Keywords Enhanced Successfully.').waitFor();
    expect(keywordsAt(roots.osfRoot, 'Soil Study')).toEqual(
      expect.arrayContaining(['soil', 'water', 'ecology', 'biology']),
    );
    watch.expectClean();
  });

  it('assesses a project with FAIRshake, automatically and by a rubric answered by hand', async () => {
    await closeModal();
    const identifier = detailLink('Soil Study');
    for (const rubric of ['Run an Automatic Assessment', 'Dataset']) {
      await chooseService('FAIRshake');
      const dialog = page.locator('[role=dialog]');
      await dialog.getByLabel(rubric).check();
      await clickInModal(['Next']);
      if (rubric === 'Dataset') {
        // every metric answered (the first option each time) before the client lets it be sent
        const metrics = dialog.locator('[aria-label="FAIRShake Options"]');
        await metrics.first().waitFor();
        for (const metric of await metrics.all()) await metric.getByRole('radio').first().check();
        await clickInModal(['Submit Assessment']);
      }
      await dialog.getByText('FAIRshake has successfully registered a digital object').waitFor();
      await screenshot(`fairshake-${rubric.split(' ').pop()!.toLowerCase()}`);
      await closeModal();
    }
    const registered = fairshake.requests.filter(
      ({ method, path }) => method === 'POST' && path === '/digital_object/',
    );
    // the digital object is registered once, then assessed by each rubric
    expect(registered.map(({ body }) => (body as { url?: string }).url)).toEqual([identifier]);
    expect(fairshake.requests.filter(({ path }) => path === '/assessment/')).toHaveLength(2);
    watch.expectClean();
  });

  it("proposes an emulation environment with EaaSI from the project's bag", async () => {
    await chooseService('EaaSI');
    await clickInModal(['Send']);
    await page.getByText('EaaSI has successfully created an emulation image').waitFor({ timeout: 60_000 });
    const tasks = [...proposer.tasks.values()];
    expect(tasks).toHaveLength(1);
    expect(tasks[0]).toMatchObject({ state: 'finished', validBag: true });
    watch.expectClean();
  });

  it('evaluates a project with FAIRshare', async () => {
    await closeModal();
    await chooseService('FAIRshare');
    const dialog = page.locator('[role=dialog]');
    await dialog.getByRole('button', { name: 'Select All' }).click();
    await screenshot('fairshare-tests');
    await clickInModal(['Evaluate']);
    await watch.settled();
    await screenshot('fairshare-results');
    expect(evaluator.evaluations.map(({ input }) => input.resource)).toContain(detailLink('Soil Study'));
    watch.expectClean();
  });

  it('bags a zip with the BagIt tool, saved by the browser', async () => {
    await closeModal();
    await page.getByText('BagIt Tool', { exact: true }).click();
    const zip = join(downloads, 'loose-files.zip');
    writeFileSync(
      zip,
      await zipOf([
        { name: 'notes/a.txt', content: 'alpha\n' },
        { name: 'b.csv', content: 'x\n1\n' },
      ]),
    );
    await page.locator('[role=dialog] #contained-button-file').setInputFiles(zip);
    const saved = page.waitForEvent('download');
    await clickInModal(['Upload File']);
    const download = await saved;
    expect(download.suggestedFilename()).toBe('presqt_loose-files.zip');
    const bagged = join(downloads, download.suggestedFilename());
    await download.saveAs(bagged);
    const bagName = readdirSync(extractZip(bagged))[0];
    verifyBagZip(bagged, bagName);
    expect(readFileSync(join(extractZip(bagged), bagName, 'data/notes/a.txt'), 'utf8')).toBe('alpha\n');
    watch.expectClean();
  });

  /** The Detail link (and identifier) of one of alice's OSF resources, at the address the browser uses. */
  function detailLink(path: string): string {
    const { host, port } = builtApiAddress();
    return `https://${host}:${port}/api_v1/targets/osf/resources/${fsId(path)}/`;
  }

  /** Picks a service from the Services menu and opens it (the last of that name: ours come before the client's). */
  async function chooseService(name: string): Promise<void> {
    await page.getByRole('button', { name: 'services', exact: true }).click();
    await page.getByRole('menuitem', { name, exact: true }).last().click();
    await page.getByRole('button', { name, exact: true }).click();
    await watch.settled();
  }

  /** Opens OSF with alice's token, as the token modal asks for it. */
  async function connect(): Promise<void> {
    await page.getByAltText('OSF').click();
    await page.locator('[role=dialog] input').fill(TOKEN);
    await page.getByRole('button', { name: 'Connect' }).click();
    await page.getByText('Big Survey').waitFor();
  }

  /** Clicks a resource in the browser (turning pages until it shows) and waits for its detail. */
  async function openResource(title: string): Promise<void> {
    const resource = page.locator('button:has(img) > span', { hasText: new RegExp(`^${title}$`) }).first();
    for (let pageNumber = 1; !(await resource.isVisible()); pageNumber++) {
      if (pageNumber > 5) throw new Error(`${title} is on none of the pages`);
      // the pager's own box: its buttons show only the pages near the current one
      const pageBox = page.locator('input[type=number]').first();
      await pageBox.fill(String(pageNumber));
      await pageBox.press('Enter');
      await watch.settled();
    }
    await resource.click();
    await page
      .locator('h1, h2, h3, h4, h5, h6, p, span', { hasText: new RegExp(`^${title}$`) })
      .last()
      .waitFor();
    await watch.settled();
  }

  /** The page's whole text (the detail panel has no handle of its own). */
  function pageText(): Promise<string> {
    return page.locator('body').innerText();
  }

  /** Opens an action's modal from its button and clicks through the buttons of its steps in order. */
  async function startFromModal(action: string, buttons: string[]): Promise<void> {
    await page.getByRole('button', { name: action, exact: true }).first().click();
    await clickInModal(buttons);
  }

  /** Clicks each named button of the modal's open step, waiting each time for the step to close. */
  async function clickInModal(buttons: string[]): Promise<void> {
    for (const name of buttons) {
      const button = page
        .locator('[role=dialog] .MuiCollapse-entered')
        .getByRole('button', { name, exact: true });
      // the element itself: the next step's button may have the same name
      const element = await button.elementHandle();
      await element.click();
      await element.waitForElementState('hidden');
    }
  }

  /** A BagIt zip of `files` (paths below data/), written where the browser can pick it. */
  async function bagFile(name: string, files: Record<string, string | Buffer>): Promise<string> {
    const file = join(downloads, name);
    writeFileSync(file, await makeBagZip({ files, algorithms: ['sha256', 'md5'] }));
    return file;
  }

  async function closeModal(): Promise<void> {
    await page.locator('[role=dialog]').getByRole('button', { name: 'close' }).click();
    await page.locator('[role=dialog]').waitFor({ state: 'detached' });
  }

  /**
   * Walks the transfer modal from the resource's Transfer Out button to github, as a new project or into the
   * destination container `into`, with the keyword action given, and starts the transfer.
   */
  async function transferOut(
    title: string,
    options: { keywords: string; into?: string; beforeKeywordsStep?: () => Promise<void> },
  ): Promise<void> {
    await openResource(title);
    await page.getByRole('button', { name: 'Transfer Out', exact: true }).click();
    const dialog = page.locator('[role=dialog]');
    await dialog.getByAltText('github').click();
    await clickInModal(['Next']);
    await dialog.locator('.MuiCollapse-entered input').fill(TOKEN);
    await clickInModal(['Next']);
    if (options.into) await dialog.locator('button:has(img) > span', { hasText: options.into }).click();
    await clickInModal(['Next', 'Next']);
    await dialog.getByLabel(options.keywords).check();
    await clickInModal(['Next']);
    await options.beforeKeywordsStep?.();
    // keywords, FAIRshare opt-in (skipped), agreement
    await clickInModal(['Next', 'Next', 'Next', 'Transfer File']);
  }

  /**
   * Whether what a cancelled job wrote at `path` is gone within 30 s: the job reads as cancelled at once, and
   * its worker takes back what it wrote when it next looks (within a second unless the machine is loaded).
   */
  async function takenBack(path: string): Promise<boolean> {
    const deadline = Date.now() + 30_000;
    while (existsSync(path) && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 200));
    return !existsSync(path);
  }

  /** The keywords a filesystem target keeps for one of alice's projects. */
  function keywordsAt(root: string, project: string): string[] {
    return JSON.parse(
      readFileSync(join(root, 'alice', project, '.presqt-keywords.json'), 'utf8'),
    ) as string[];
  }

  /** The titles in the resource browser, top to bottom. */
  async function visibleTitles(): Promise<string[]> {
    await watch.settled();
    return page.locator('button:has(img) > span').allInnerTexts();
  }
});
