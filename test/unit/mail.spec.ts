import { ServiceError } from '@app/common';
import { DEFAULT_FROM, jobEndedMessage, Mailer, parseEmailOptIn } from '@app/mail';
import { mkdtemp, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// a pass-through rename the outbox test can make fail once, to check the temp file is cleaned up
jest.mock('node:fs/promises', () => {
  const actual = jest.requireActual<typeof import('node:fs/promises')>('node:fs/promises');
  return { ...actual, rename: jest.fn(actual.rename) };
});

const MISSING = "PresQT Error: 'presqt-email-opt-in' missing in the request headers.";
const invalid = (got: string) =>
  `PresQT Error: 'presqt-email-opt-in' must be empty or one email address; got '${got}'.`;

function errorOf(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected a throw');
}

describe('parseEmailOptIn', () => {
  it.each<[string, string | string[], string]>([
    ['a plain address', 'alice@example.org', 'alice@example.org'],
    ['surrounding spaces, trimmed', '  alice@example.org\t', 'alice@example.org'],
    [
      'plus tag, dots and subdomains',
      'first.last+tag@mail.example.co.uk',
      'first.last+tag@mail.example.co.uk',
    ],
    ['localhost', 'ops@localhost', 'ops@localhost'],
    ['a single-element array', ['alice@example.org'], 'alice@example.org'],
  ])('accepts %s', (_name, value, expected) => {
    expect(parseEmailOptIn(value)).toBe(expected);
  });

  it.each<[string, string | string[]]>([
    ['empty', ''],
    ['whitespace', '   '],
    ['an empty single-element array', ['']],
  ])('returns null (no email) for %s', (_name, value) => {
    expect(parseEmailOptIn(value)).toBeNull();
  });

  it('rejects a missing header with 400', () => {
    const err = errorOf(() => parseEmailOptIn(undefined));
    expect(err).toBeInstanceOf(ServiceError);
    expect(err).toMatchObject({ status: 400, message: MISSING });
  });

  it.each<[string, string | string[]]>([
    ['a comma list', 'a@b.org, c@d.org'],
    ['a comma list without space', 'a@b.org,c@d.org'],
    ['a semicolon list', 'a@b.org;c@d.org'],
    ['a header sent twice', ['a@b.org', 'c@d.org']],
    ['a display name', 'Alice <alice@example.org>'],
    ['angle brackets', '<alice@example.org>'],
    ['CRLF header injection', 'alice@example.org\r\nBcc: evil@example.org'],
    ['LF header injection', 'alice@example.org\nBcc: evil@example.org'],
    ['a space in the local part', 'alice smith@example.org'],
    ['a space in the domain', 'alice@exa mple.org'],
    ['two addresses separated by a space', 'a@b.org c@d.org'],
    ['no @', 'alice.example.org'],
    ['two @', 'a@b@example.org'],
    ['an empty local part', '@example.org'],
    ['an empty domain', 'alice@'],
    ['an undotted domain', 'alice@example'],
    ['an empty domain label', 'alice@example..org'],
    ['a leading dot', '.alice@example.org'],
    ['a quoted local part', '"alice"@example.org'],
    ['a word', 'yes'],
  ])('rejects %s with 400', (_name, value) => {
    const raw = Array.isArray(value) ? value.join(', ') : value;
    const err = errorOf(() => parseEmailOptIn(value));
    expect(err).toBeInstanceOf(ServiceError);
    expect(err).toMatchObject({ status: 400, message: invalid(raw) });
  });

  it('truncates a long rejected value to 100 characters in the message', () => {
    const err = errorOf(() => parseEmailOptIn('x'.repeat(150)));
    expect(err).toMatchObject({ status: 400, message: invalid('x'.repeat(100)) });
  });
});

describe('jobEndedMessage', () => {
  it.each([
    ['download', 'finished', 'PresQT Download Complete'],
    ['upload', 'failed', 'PresQT Upload Failed'],
    ['transfer', 'cancelled', 'PresQT Transfer Cancelled'],
    ['transfer', 'finished', 'PresQT Transfer Complete'],
  ] as const)('titles a %s that %s "%s"', (kind, status, subject) => {
    expect(jobEndedMessage({ kind, status, message: 'm', failedFixity: [] }).subject).toBe(subject);
  });

  it('gives the final message, failed-fixity paths and the link', () => {
    const { text } = jobEndedMessage({
      kind: 'download',
      status: 'finished',
      message: 'Download successful but with fixity errors.',
      failedFixity: ['/data/a.csv', '/data/b/c.txt'],
      link: 'http://broker.example.org/api_v1/downloads/abc',
    });
    expect(text).toContain('Download successful but with fixity errors.');
    expect(text).toMatch(/fixity/i);
    expect(text).toContain('  - /data/a.csv\n');
    expect(text).toContain('  - /data/b/c.txt\n');
    expect(text).toContain('http://broker.example.org/api_v1/downloads/abc');
  });

  it('leaves out the fixity section and link when there are none', () => {
    const { text } = jobEndedMessage({
      kind: 'upload',
      status: 'failed',
      message: 'Target said no.',
      failedFixity: [],
    });
    expect(text).toContain('Target said no.');
    expect(text).not.toMatch(/fixity|Link:/);
  });
});

describe('Mailer, outbox', () => {
  let dir: string;
  let outbox: string;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'mail-'));
    outbox = join(dir, 'data', 'outbox');
  });

  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('writes one complete, parseable .eml into a private outbox it creates', async () => {
    const mailer = new Mailer({ outboxDir: outbox });
    const { subject, text } = jobEndedMessage({
      kind: 'download',
      status: 'finished',
      message: 'Download successful.',
      failedFixity: [],
      link: 'http://localhost:8000/api_v1/downloads/abc',
    });
    await mailer.send({ to: 'alice@example.org', subject, text });

    expect((await stat(outbox)).mode & 0o777).toBe(0o700);
    const files = await readdir(outbox);
    // only the final file: the temp file was renamed away
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z-[0-9a-f]{12}\.eml$/);

    const eml = await readFile(join(outbox, files[0]), 'utf8');
    // RFC 5322: CRLF line ends, headers then a blank line then the body
    expect(eml).not.toMatch(/[^\r]\n/);
    const split = eml.indexOf('\r\n\r\n');
    expect(split).toBeGreaterThan(0);
    const headers = eml.slice(0, split + 2);
    const body = eml.slice(split + 4);
    expect(headers).toMatch(/^To: alice@example\.org\r$/m);
    expect(headers).toMatch(/^Subject: PresQT Download Complete\r$/m);
    expect(headers).toMatch(/^From: PresQT <noreply@localhost>\r$/m);
    expect(headers).toMatch(/^Date: .+\r$/m);
    expect(headers).toMatch(/^Message-ID: <.+>\r$/m);
    expect(body).toContain('Download successful.');
    expect(body).toContain('http://localhost:8000/api_v1/downloads/abc');
    expect(DEFAULT_FROM).toBe('PresQT <noreply@localhost>');
  });

  it('writes one file per message, honouring a custom sender', async () => {
    const mailer = new Mailer({ outboxDir: outbox, from: 'Broker <broker@example.org>' });
    await mailer.send({ to: 'a@example.org', subject: 's1', text: 't1' });
    await mailer.send({ to: 'b@example.org', subject: 's2', text: 't2' });
    const files = (await readdir(outbox)).sort();
    expect(files).toHaveLength(2);
    expect(files.every((f) => f.endsWith('.eml'))).toBe(true);
    const emls = await Promise.all(files.map((f) => readFile(join(outbox, f), 'utf8')));
    expect(emls.every((e) => /^From: Broker <broker@example\.org>\r$/m.test(e))).toBe(true);
  });

  it('keeps CRLF line ends when the body needs encoding', async () => {
    const mailer = new Mailer({ outboxDir: outbox });
    const longPath = '/data/' + 'très-long-'.repeat(30) + 'fichier.csv';
    const { subject, text } = jobEndedMessage({
      kind: 'upload',
      status: 'finished',
      message: 'Upload réussi.',
      failedFixity: [longPath],
    });
    await mailer.send({ to: 'alice@example.org', subject, text });
    const [file] = await readdir(outbox);
    const eml = await readFile(join(outbox, file), 'utf8');
    expect(eml).not.toMatch(/[^\r]\n/);
    expect(eml).toMatch(/^Content-Transfer-Encoding: (quoted-printable|base64)\r$/m);
  });

  it('leaves no temp file behind when the write fails', async () => {
    jest.mocked(rename).mockRejectedValueOnce(new Error('disk full'));
    const mailer = new Mailer({ outboxDir: outbox });
    await expect(mailer.send({ to: 'a@example.org', subject: 's', text: 't' })).rejects.toThrow('disk full');
    expect(await readdir(outbox)).toEqual([]);
  });

  it('refuses a recipient that is not one address, writing nothing', async () => {
    const mailer = new Mailer({ outboxDir: outbox });
    await expect(
      mailer.send({ to: 'a@example.org, b@example.org', subject: 's', text: 't' }),
    ).rejects.toThrow();
    await expect(readdir(outbox)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('refuses an SMTP_URL that is not smtp(s)://', () => {
    expect(() => new Mailer({ smtpUrl: 'http://mail.example.org', outboxDir: outbox })).toThrow(/smtp/);
  });
});

interface Received {
  from: string;
  to: string[];
  data: string;
}

/** Just enough SMTP to accept messages: no TLS, no AUTH. */
function startFakeSmtp(): Promise<{ server: Server; port: number; received: Received[] }> {
  const received: Received[] = [];
  const server = createServer((socket: Socket) => {
    let buffered = '';
    let inData = false;
    let current: Received = { from: '', to: [], data: '' };
    const reply = (line: string) => socket.write(`${line}\r\n`);
    reply('220 fake.localhost ESMTP');
    socket.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      let end: number;
      while ((end = buffered.indexOf('\r\n')) >= 0) {
        const line = buffered.slice(0, end);
        buffered = buffered.slice(end + 2);
        if (inData) {
          if (line === '.') {
            inData = false;
            received.push(current);
            current = { from: '', to: [], data: '' };
            reply('250 OK queued');
          } else {
            // dot-unstuffing (RFC 5321 4.5.2)
            current.data += (line.startsWith('..') ? line.slice(1) : line) + '\r\n';
          }
          continue;
        }
        const verb = line.slice(0, 4).toUpperCase();
        if (verb === 'EHLO' || verb === 'HELO') reply('250 fake.localhost');
        else if (verb === 'MAIL') {
          current.from = line;
          reply('250 OK');
        } else if (verb === 'RCPT') {
          current.to.push(line);
          reply('250 OK');
        } else if (verb === 'DATA') {
          inData = true;
          reply('354 End data with <CR><LF>.<CR><LF>');
        } else if (verb === 'RSET' || verb === 'NOOP') reply('250 OK');
        else if (verb === 'QUIT') {
          reply('221 Bye');
          socket.end();
        } else reply('502 Command not implemented');
      }
    });
    socket.on('error', () => undefined);
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      resolve({ server, port: (server.address() as AddressInfo).port, received });
    });
  });
}

describe('Mailer, SMTP', () => {
  let smtp: Awaited<ReturnType<typeof startFakeSmtp>>;
  let dir: string;

  beforeAll(async () => {
    smtp = await startFakeSmtp();
    dir = await mkdtemp(join(tmpdir(), 'mail-smtp-'));
  });

  afterAll(async () => {
    await new Promise((resolve) => smtp.server.close(resolve));
    await rm(dir, { recursive: true, force: true });
  });

  it('delivers the message to the SMTP server and writes no outbox file', async () => {
    // the fake server offers no STARTTLS; ignoreTLS keeps nodemailer from ever trying it
    const mailer = new Mailer({ smtpUrl: `smtp://127.0.0.1:${smtp.port}/?ignoreTLS=true`, outboxDir: dir });
    const { subject, text } = jobEndedMessage({
      kind: 'transfer',
      status: 'failed',
      message: 'The destination refused the upload.',
      failedFixity: [],
    });
    await mailer.send({ to: 'bob@example.org', subject, text });

    expect(smtp.received).toHaveLength(1);
    const [mail] = smtp.received;
    expect(mail.from).toMatch(/^MAIL FROM:<noreply@localhost>/i);
    expect(mail.to).toEqual([expect.stringMatching(/^RCPT TO:<bob@example\.org>/i)]);
    expect(mail.data).toMatch(/^To: bob@example\.org\r$/m);
    expect(mail.data).toMatch(/^Subject: PresQT Transfer Failed\r$/m);
    expect(mail.data).toContain('The destination refused the upload.');
    expect(await readdir(dir)).toEqual([]);
  });
});
