import { setting, Settings } from '@app/config';

/** Where job emails go. */
export class MailSettings extends Settings('Email', {
  smtpUrl: setting.text('SMTP_URL', {
    pattern: /^smtps?:\/\/.+/,
    expected: 'an smtp:// or smtps:// URL',
    doc: '`smtp://` or `smtps://` server for job emails; unset: `.eml` files in `DATA_DIR/outbox/`',
  }),
}) {}
