import { setting, Settings } from '@app/config';

/** Where the API listens and how it answers browsers and proxies. */
export class HttpSettings extends Settings('The API', {
  port: setting.int('PORT', { min: 0, max: 65535, default: 8000, doc: 'API port' }),
  publicBaseUrl: setting.url('PUBLIC_BASE_URL', {
    example: 'https://presqt.example.org',
    base: true,
    shownDefault: 'from the request',
    doc: 'scheme and host used in every link in a body',
  }),
  corsOrigins: setting.text<'*' | string[]>('CORS_ORIGINS', {
    pattern: /^(\*|https?:\/\/[^\s,/]+(,\s*https?:\/\/[^\s,/]+)*)$/,
    expected: '* or a comma-separated list of origins such as https://app.example.org',
    read: (list) => (list === '*' ? '*' : list.split(',').map((origin) => origin.trim())),
    default: '*',
    doc: 'origins browser clients may call from (`*`: any)',
  }),
  trustProxy: setting.text('TRUST_PROXY', {
    doc: "Express's `trust proxy`: how many proxies (or which addresses) to believe `X-Forwarded-For` from, so limits see the client's address",
  }),
  announcement: setting.text('ANNOUNCEMENT', {
    read: (text) => text.trim(),
    doc: 'a banner text for web clients, answered at `GET /announcements.json` as `{"show": true, "message": ...}`; unset: `{"show": false, "message": ""}`',
  }),
}) {}
