import { setting, Settings } from '@app/config';

/** What the process logs, and how. */
export class LogSettings extends Settings('Logs', {
  level: setting.oneOf('LOG_LEVEL', ['error', 'warn', 'log', 'debug', 'verbose'], {
    default: 'log',
    doc: '`error`, `warn`, `log`, `debug` or `verbose`',
  }),
  format: setting.oneOf('LOG_FORMAT', ['json', 'pretty'], {
    default: 'json',
    doc: '`json` (one JSON object a line, pino) or `pretty` (coloured lines for a terminal, pino-pretty)',
  }),
}) {}
