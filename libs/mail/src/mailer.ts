import { randomBytes } from 'node:crypto';
import { mkdir, rename, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import nodemailer, { type Transporter } from 'nodemailer';
import { isEmailAddress } from './email-opt-in';

export const DEFAULT_FROM = 'PresQT <noreply@localhost>';

export interface MailerOptions {
  /** `smtp://` or `smtps://` URL (SMTP_URL); when absent, messages go to `outboxDir` as .eml files. */
  smtpUrl?: string;
  /** Where .eml files are written when there is no SMTP server (DATA_DIR/outbox). */
  outboxDir: string;
  from?: string;
}

/**
 * What to send. Messages are stored in plain text (outbox files, mail servers, inboxes): never put target
 * tokens or other secrets in `subject` or `text`.
 */
export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
}

/** Sends job notifications (docs/behaviour.md#email): over SMTP when configured, otherwise into an outbox directory. */
export class Mailer {
  private readonly from: string;
  private readonly outboxDir: string;
  private readonly transport: Transporter;
  private readonly toOutbox: boolean;

  constructor(options: MailerOptions) {
    this.from = options.from ?? DEFAULT_FROM;
    this.outboxDir = options.outboxDir;
    if (options.smtpUrl) {
      // nodemailer silently treats any other string as a transport plugin name; fail clearly instead
      if (!/^smtps?:\/\//i.test(options.smtpUrl)) {
        throw new Error('SMTP_URL must be an smtp:// or smtps:// URL');
      }
      this.transport = nodemailer.createTransport(options.smtpUrl);
      this.toOutbox = false;
    } else {
      // composes the full RFC 5322 message in memory without sending it anywhere
      this.transport = nodemailer.createTransport({ streamTransport: true, buffer: true });
      this.toOutbox = true;
    }
  }

  async send(mail: OutgoingMail): Promise<void> {
    // parseEmailOptIn already checked the address; re-check so no caller can add recipients or headers
    if (!isEmailAddress(mail.to)) throw new Error('Mailer: recipient is not one email address');
    // RFC 5322 wants CRLF line ends: nodemailer writes its headers that way but keeps a 7bit body's newlines
    // as given (the stream transport's `newline` option is only logged in v7), so normalise the body here
    const text = mail.text.replace(/\r?\n/g, '\r\n');
    const message = { from: this.from, to: mail.to, subject: mail.subject, text };
    // with the buffer-mode stream transport, `message` is the whole composed message
    const info = (await this.transport.sendMail(message)) as { message: Buffer };
    if (this.toOutbox) await this.writeToOutbox(info.message);
  }

  /** Temp file + rename, so anyone watching the outbox only ever sees complete .eml files. */
  private async writeToOutbox(content: Buffer): Promise<void> {
    // messages name their recipient: keep the outbox private to the service user
    await mkdir(this.outboxDir, { recursive: true, mode: 0o700 });
    const name = `${new Date().toISOString()}-${randomBytes(6).toString('hex')}.eml`;
    const finalPath = join(this.outboxDir, name);
    const tempPath = join(this.outboxDir, `.${name}.tmp`);
    try {
      await writeFile(tempPath, content, { mode: 0o600, flag: 'wx' });
      await rename(tempPath, finalPath);
    } catch (err) {
      await unlink(tempPath).catch(() => undefined);
      throw err;
    }
  }
}
