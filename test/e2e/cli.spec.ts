import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { makeBagZip } from '../support/bags';
import { runCli } from '../support/cli';
import { filesystemEntry, fsId, treeDigests, writeTargetsFile, writeTree } from '../support/fs-fixtures';
import { extractZip, pollUntil, verifyBagZip } from '../support/jobs';
import { freePort } from '../support/ports';
import { ROOT, startStack, type Stack } from '../support/stack';

const TOKEN = 'alice-token';
const partners = (names: string[]) => ({ transfer_in: names, transfer_out: names });

describe('the presqt command-line client (built CLI against the real API, worker and Redis)', () => {
  let stack: Stack;
  let sourceRoot: string;
  let destinationRoot: string;
  let work: string;
  /** an empty home: no tokens file unless a test writes one */
  let home: string;
  const big = randomBytes(2 << 20);

  beforeAll(async () => {
    sourceRoot = mkdtempSync(join(tmpdir(), 'presqt-cli-src-'));
    destinationRoot = mkdtempSync(join(tmpdir(), 'presqt-cli-dst-'));
    work = mkdtempSync(join(tmpdir(), 'presqt-cli-work-'));
    home = mkdtempSync(join(tmpdir(), 'presqt-cli-home-'));
    const many: Record<string, Buffer> = {};
    // big enough that Ctrl-C after the job has started always lands while it runs
    for (let i = 0; i < 64; i++) many[`alice/Many/f${i}.bin`] = randomBytes(4 << 20);
    writeTree(sourceRoot, {
      'alice/Survey/README.md': '# Survey\n',
      'alice/Survey/data/big.bin': big,
      'alice/Survey/.presqt-keywords.json': JSON.stringify(['Ornithology']),
      'alice/Notes/todo.txt': 'count the birds\n',
      'alice/Photos/gull.txt': 'a gull\n',
      ...many,
    });
    writeTree(destinationRoot, { 'alice/Existing/keep.txt': 'keep' });
    const targetsFile = writeTargetsFile([
      filesystemEntry('src', sourceRoot, {
        supported_transfer_partners: partners(['dst']),
        options: { root: sourceRoot, tokens: { [TOKEN]: 'alice' }, per_page: 2 },
      }),
      filesystemEntry('dst', destinationRoot, { supported_transfer_partners: partners(['src']) }),
    ]);
    stack = await startStack({ env: { TARGETS_FILE: targetsFile } });
  });

  afterAll(async () => {
    await stack?.stop();
  });

  const baseEnv = () => ({
    HOME: home,
    PRESQT_SERVER: stack.baseUrl,
    PRESQT_TOKEN_SRC: TOKEN,
    PRESQT_TOKEN_DST: TOKEN,
  });

  /** Runs presqt to its end; whatever happens, no token may appear in what it printed. */
  const presqt = async (args: string[], env: Record<string, string> = baseEnv()) => {
    const result = await runCli(args, env).done;
    expect(`${result.stdout}${result.stderr}`).not.toContain(TOKEN);
    return result;
  };

  const json = (stdout: string) => JSON.parse(stdout);

  it('lists the targets, as a table and as JSON', async () => {
    const table = await presqt(['targets']);
    expect(table.status).toBe(0);
    expect(table.stdout).toMatch(/^NAME\s+DESCRIPTION\s+CAN\n/);
    expect(table.stdout).toMatch(/^src\s+Test src\s+ls, download, upload, transfer-out, transfer-in/m);
    const listed = await presqt(['targets', '--json']);
    expect(listed.status).toBe(0);
    expect(JSON.parse(listed.stdout).map((target: { name: string }) => target.name)).toEqual(['src', 'dst']);
  });

  it('lists resources page by page, every page, by search, and one resource with its children', async () => {
    const first = await presqt(['ls', 'src', '--json']);
    expect(first.status).toBe(0);
    expect(json(first.stdout).pages).toMatchObject({ total_pages: 2, per_page: 2 });
    const second = await presqt(['ls', 'src', '--page', '2', '--json']);
    const all = await presqt(['ls', 'src', '--all', '--json']);
    const titles = (stdout: string) =>
      json(stdout).resources.map((resource: { title: string }) => resource.title);
    expect(titles(all.stdout).sort()).toEqual(['Many', 'Notes', 'Photos', 'Survey']);
    expect([...titles(first.stdout), ...titles(second.stdout)].sort()).toEqual(titles(all.stdout).sort());

    const human = await presqt(['ls', 'src']);
    expect(human.stdout).toMatch(/^ID\s+KIND\s+TITLE\n/);
    expect(human.stderr).toContain('page 1 of 2: --page 2 for the next, --all for every page');

    const found = await presqt(['ls', 'src', '--title', 'Survey', '--json']);
    expect(found.status).toBe(0);
    expect(json(found.stdout).resources).toEqual([
      expect.objectContaining({ id: fsId('Survey'), title: 'Survey' }),
    ]);

    const detail = await presqt(['ls', `src:${fsId('Survey')}`]);
    expect(detail.status).toBe(0);
    expect(detail.stdout).toContain(`Survey (project, ${fsId('Survey')})`);
    expect(detail.stdout).toMatch(new RegExp(`^${fsId('Survey/README.md')}\\s+file\\s+README.md$`, 'm'));
    expect(detail.stdout).toMatch(new RegExp(`^${fsId('Survey/data')}\\s+folder\\s+data$`, 'm'));
  });

  it('downloads a resource into a zip holding a valid bag, quietly when not on a terminal', async () => {
    const file = join(work, 'survey.zip');
    const bagName = `src_download_${fsId('Survey')}`;
    const { status, stdout, stderr } = await presqt([
      'download',
      `src:${fsId('Survey')}`,
      '-o',
      file,
      '--json',
    ]);
    expect({ status, stderr }).toEqual({ status: 0, stderr: '' });
    expect(json(stdout)).toMatchObject({
      status: 'finished',
      zip_name: `${bagName}.zip`,
      failed_fixity: [],
      file,
      bytes: statSync(file).size,
    });
    verifyBagZip(file, bagName);
    const bag = join(extractZip(file), bagName);
    expect(readFileSync(join(bag, 'data', 'Survey', 'data', 'big.bin')).equals(big)).toBe(true);
    expect(readdirSync(work)).toEqual(['survey.zip']);

    // into a folder: the service's name for the zip
    const folder = mkdtempSync(join(tmpdir(), 'presqt-cli-into-'));
    const human = await presqt(['download', `src:${fsId('Notes')}`, '-o', folder]);
    expect(human.status).toBe(0);
    expect(human.stdout).toContain(`Saved ${join(folder, `src_download_${fsId('Notes')}.zip`)}`);
    verifyBagZip(join(folder, `src_download_${fsId('Notes')}.zip`), `src_download_${fsId('Notes')}`);

    const status_ = await presqt(['status', 'download', 'src', '--json']);
    expect(status_.status).toBe(0);
    expect(json(status_.stdout)).toMatchObject({
      status: 'finished',
      zip_name: `src_download_${fsId('Notes')}.zip`,
    });
  });

  it('uploads a BagIt zip as a new project', async () => {
    const zip = join(work, 'upload.zip');
    writeFileSync(
      zip,
      await makeBagZip({ files: { 'Zipped/a.txt': 'from a zip\n', 'Zipped/b/c.txt': 'c\n' } }),
    );
    const { status, stdout } = await presqt(['upload', zip, 'dst', '--json']);
    expect(status).toBe(0);
    expect(json(stdout)).toMatchObject({ status: 'finished', destination_resource_id: fsId('Zipped') });
    expect(readFileSync(join(destinationRoot, 'alice', 'Zipped', 'b', 'c.txt'), 'utf8')).toBe('c\n');
  });

  it('bags a folder itself and uploads it as a new project, then into a container with update', async () => {
    const folder = join(work, 'Field Season');
    writeTree(folder, { 'site A/counts.csv': 'gull,3\n', 'big.bin': big, 'notes.md': '# notes\n' });
    // an empty folder, which a bag cannot hold, and a link, which the bagging leaves out
    mkdirSync(join(folder, 'empty'));
    symlinkSync('/etc/hostname', join(folder, 'link'));
    const { status, stdout, stderr } = await presqt(['upload', folder, 'dst', '--json']);
    expect(status).toBe(0);
    expect(stderr).toBe(`Leaving out ${join(folder, 'link')}: not a regular file or folder.\n`);
    expect(json(stdout)).toMatchObject({ status: 'finished', destination_resource_id: fsId('Field Season') });
    const project = join(destinationRoot, 'alice', 'Field Season');
    const { link: _link, ...files } = treeDigests(folder);
    expect(treeDigests(project)).toEqual({ ...files, 'PRESQT_FTS_METADATA.json': expect.any(String) });
    // the bag was made in the temporary folder and is gone
    expect(readdirSync(tmpdir()).filter((name) => name.startsWith('presqt-bag-'))).toEqual([]);

    writeFileSync(join(folder, 'notes.md'), '# notes, revised\n');
    const into = await presqt(['upload', folder, `dst:${fsId('Existing')}`, '--duplicate', 'update']);
    expect(into.status).toBe(0);
    expect(into.stdout).toContain(`Upload successful. dst:${fsId('Existing')}`);
    expect(readFileSync(join(destinationRoot, 'alice', 'Existing', 'Field Season', 'notes.md'), 'utf8')).toBe(
      '# notes, revised\n',
    );
    const again = await presqt([
      'upload',
      folder,
      `dst:${fsId('Existing')}`,
      '--duplicate',
      'update',
      '--json',
    ]);
    // nothing differs the second time: every file is left as it is
    expect(json(again.stdout).resources_ignored.sort()).toEqual([
      '/Field Season/big.bin',
      '/Field Season/notes.md',
      '/Field Season/site A/counts.csv',
    ]);
    expect(json(again.stdout).resources_updated).toEqual([]);
  });

  it('transfers a resource with its keywords and one more', async () => {
    const { status, stdout } = await presqt([
      'transfer',
      `src:${fsId('Survey')}`,
      'dst',
      '--keyword',
      'Field Work',
      '--json',
    ]);
    expect(status).toBe(0);
    expect(json(stdout)).toMatchObject({
      status: 'finished',
      source_resource_id: fsId('Survey'),
      destination_resource_id: fsId('Survey'),
      initial_keywords: ['ornithology'],
      enhanced_keywords: ['field work'],
    });
    const project = join(destinationRoot, 'alice', 'Survey');
    expect(readFileSync(join(project, 'data', 'big.bin')).equals(big)).toBe(true);
    expect(JSON.parse(readFileSync(join(project, '.presqt-keywords.json'), 'utf8'))).toEqual([
      'ornithology',
      'field work',
    ]);

    const human = await presqt([
      'transfer',
      `src:${fsId('Notes')}`,
      `dst:${fsId('Existing')}`,
      '--keyword-action',
      'none',
    ]);
    expect(human.status).toBe(0);
    expect(human.stdout).toContain(`Transfer successful. dst:${fsId('Existing')}`);
    expect(readFileSync(join(destinationRoot, 'alice', 'Existing', 'Notes', 'todo.txt'), 'utf8')).toBe(
      'count the birds\n',
    );
  });

  it('fails with status 1 and the service message on a bad token, in words and in JSON', async () => {
    const env = { ...baseEnv(), PRESQT_TOKEN_SRC: 'not-a-token' };
    const words = await presqt(['ls', 'src'], env);
    expect(words.status).toBe(1);
    expect(words.stdout).toBe('');
    expect(words.stderr).toMatch(/^presqt: .*invalid.* \(HTTP 401\)\n$/i);
    expect(words.stderr).not.toContain('not-a-token');
    const scripted = await presqt(['download', `src:${fsId('Survey')}`, '--json'], env);
    expect(scripted.status).toBe(1);
    expect(json(scripted.stdout)).toEqual({
      error: expect.stringMatching(/invalid/i),
      exit_status: 1,
      http_status: 401,
    });
  });

  it('names an unknown target, a missing token, a wrong command line and an unreachable service', async () => {
    const unknown = await presqt(['ls', 'nowhere']);
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toContain("Invalid Target Name 'nowhere' (HTTP 404)");

    const { PRESQT_TOKEN_DST: _dst, ...withoutDst } = baseEnv();
    const missing = await presqt(['upload', work, 'dst'], withoutDst);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toBe(
      `presqt: No token for the target 'dst': set PRESQT_TOKEN_DST or add "dst" to ${join(home, '.config', 'presqt', 'tokens.json')}.\n`,
    );

    const usage = await presqt(['transfer', 'src', 'dst']);
    expect(usage.status).toBe(2);
    expect(usage.stderr).toContain("'src' names no resource");
    const unknownCommand = await presqt(['copy']);
    expect(unknownCommand.status).toBe(2);
    const badChoice = await presqt(['upload', work, 'dst', '--duplicate', 'replace']);
    expect(badChoice.status).toBe(2);
    expect(badChoice.stderr).toContain('Allowed choices are ignore, update');

    // a port nothing listens on
    const nobody = `http://127.0.0.1:${await freePort()}`;
    const closed = await presqt(['targets', '--server', nobody]);
    expect(closed.status).toBe(1);
    expect(closed.stderr).toBe(`presqt: Cannot reach the PresQT service at ${nobody}: ECONNREFUSED.\n`);
  });

  it('reads tokens from the tokens file, and never shows a tokens file that is not JSON', async () => {
    const { PRESQT_TOKEN_SRC: _src, ...withoutTokens } = baseEnv();
    const configHome = mkdtempSync(join(tmpdir(), 'presqt-cli-config-'));
    const file = join(configHome, 'presqt', 'tokens.json');
    writeTree(configHome, { 'presqt/tokens.json': JSON.stringify({ src: TOKEN }) });
    chmodSync(file, 0o600);
    const listed = await presqt(['ls', 'src', '--json'], { ...withoutTokens, XDG_CONFIG_HOME: configHome });
    expect(listed.status).toBe(0);
    expect(listed.stderr).toBe('');

    chmodSync(file, 0o644);
    const shared = await presqt(['ls', 'src'], { ...withoutTokens, XDG_CONFIG_HOME: configHome });
    expect(shared.status).toBe(0);
    expect(shared.stderr).toContain(`Warning: ${file} can be read by other users; chmod 600 it.`);

    const broken = join(configHome, 'broken.json');
    writeFileSync(broken, `{"src": "${TOKEN}",}`, { mode: 0o600 });
    const refused = await presqt(['ls', 'src', '--tokens', broken], withoutTokens);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toBe(`presqt: The tokens file ${broken} is not valid JSON.\n`);
  });

  it('cancels the running job on Ctrl-C and exits 130, leaving no file behind', async () => {
    const file = join(work, 'many.zip');
    const run = runCli(['download', `src:${fsId('Many')}`, '-o', file], baseEnv());
    // SIGINT once the job runs at the service
    await pollUntil(
      stack.baseUrl,
      '/api_v1/job_status/download.json/',
      { 'presqt-source-token': TOKEN },
      (body) =>
        body.status === 'in_progress' &&
        typeof body.message === 'string' &&
        body.message.startsWith('Downloading'),
    );
    run.child.kill('SIGINT');
    const { status, stdout, stderr } = await run.done;
    expect(status).toBe(130);
    expect(stdout).toBe('');
    expect(stderr).toBe('presqt: Interrupted: Download was cancelled by the user\n');
    const after = await request(stack.baseUrl)
      .get('/api_v1/job_status/download.json/')
      .set('presqt-source-token', TOKEN);
    expect(after.status).toBe(500);
    expect(after.body).toMatchObject({ status: 'cancelled', status_code: '499' });
    expect(existsSync(file)).toBe(false);
    expect(existsSync(`${file}.part`)).toBe(false);
  });

  it('exits 3 when the job ends cancelled by `presqt cancel` from elsewhere', async () => {
    const run = runCli(['transfer', `src:${fsId('Many')}`, 'dst', '--json'], baseEnv());
    const tokens = { 'presqt-source-token': TOKEN, 'presqt-destination-token': TOKEN };
    await pollUntil(
      stack.baseUrl,
      '/api_v1/job_status/transfer/',
      tokens,
      (body) => body.status === 'in_progress',
    );
    const cancel = await presqt(['cancel', 'transfer', 'src', 'dst']);
    expect(cancel).toMatchObject({ status: 0, stdout: 'Transfer was cancelled by the user\n' });
    const { status, stdout, stderr } = await run.done;
    expect(status).toBe(3);
    expect(stderr).toBe('presqt: The transfer was cancelled: Transfer was cancelled by the user\n');
    expect(json(stdout)).toMatchObject({ exit_status: 3, job: { status: 'cancelled', status_code: '499' } });
    const again = await presqt(['cancel', 'transfer', 'src', 'dst']);
    expect(again.status).toBe(1);
    expect(again.stderr).toContain('had already ended (cancelled)');
  });

  it('draws a progress bar when its output is a terminal', async () => {
    const env = Object.entries({
      ...baseEnv(),
      PATH: process.env.PATH ?? '',
      TMPDIR: tmpdir(),
      TERM: 'xterm',
    })
      .map(([name, value]) => `${name}=${JSON.stringify(value)}`)
      .join(' ');
    const file = join(work, 'tty.zip');
    // script(1) runs the command on a pseudo-terminal and copies what it draws
    const onTerminal = (command: string) =>
      execFileSync(
        'script',
        [
          '-qfec',
          `env -i ${env} ${JSON.stringify(process.execPath)} dist/apps/cli/main.js ${command}`,
          '/dev/null',
        ],
        { cwd: ROOT, encoding: 'utf8' },
      );
    const drawn = onTerminal(`download src:${fsId('Survey')} -o ${file}`);
    expect(drawn).toMatch(/Download \|[\u2588\u2591]+\| 100%/);
    expect(drawn).toMatch(/Saving {3}\|[\u2588\u2591]+\| 100%/);
    expect(drawn).toContain(`Saved ${file}`);
    // the package's bytes as they are sent, then the job
    const sent = onTerminal(`upload ${file} dst`);
    expect(sent).toMatch(/Sending {2}\|[\u2588\u2591]+\| 100% \d[\d.]* \w+\/\d[\d.]* \w+/);
    expect(sent).toMatch(/Upload {3}\|[\u2588\u2591]+\| 100%/);
    expect(sent).toContain('Upload successful.');
  });

  it('runs as the package bin', () => {
    const bin = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).bin;
    expect(bin).toEqual({ presqt: 'dist/apps/cli/main.js' });
    expect(readFileSync(join(ROOT, bin.presqt), 'utf8').startsWith('#!/usr/bin/env node\n')).toBe(true);
    const version = execFileSync('npm', ['exec', '--offline', '--', 'presqt', '--version'], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    expect(version.trim()).toBe(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version);
  });
});
