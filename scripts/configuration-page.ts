import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '@app/common';
import { loadSettings, settingsReference } from '@app/config';
import { API_SETTINGS } from '../apps/api/src/api.settings';
import { WORKER_SETTINGS } from '../apps/worker/src/worker.settings';

/** The page of every setting; a test checks it against the declarations (`npm run docs:configuration`). */
export const CONFIGURATION_PAGE = join(projectRoot(), 'docs', 'configuration.md');

/** What the API prints for two bad settings, as it would print it. */
function exampleError(): string {
  try {
    loadSettings(API_SETTINGS, { PORT: 'eighty', JOB_FILES: 's3' });
  } catch (error) {
    return `api: ${(error as Error).message}`;
  }
  throw new Error('the example settings were accepted');
}

const INTRODUCTION = `# Configuration

Every setting comes from the environment. Each process reads its own (the API's, the worker's, and those of
the libraries both use), validates them at start and, when any is bad, stops with one message that names every
bad setting, the value given (never a credential's) and what it must be:

\`\`\`text
${exampleError()}
\`\`\`

An unset or blank variable takes its default. Each setting is declared once, beside the code that uses it, in a
\`*.settings.ts\` file of its library or app; this page is printed from those declarations by
\`npm run docs:configuration\`, and the test suite fails when it is out of date.

On several hosts every process needs the same \`REDIS_URL\` (or Sentinel settings), \`REDIS_PREFIX\`,
\`SECRET_KEY\` and targets ([deployment.md](deployment.md)); Redis and Redis Sentinel in full:
[redis.md](redis.md). The command-line client has settings of its own (\`PRESQT_SERVER\`,
\`PRESQT_TOKEN_<TARGET>\`, \`PRESQT_TOKENS_FILE\`): see [cli.md](cli.md#server-and-tokens). The targets and their
connectors' settings are in the targets file (\`TARGETS_FILE\`): [targets-file.md](targets-file.md).
`;

/** The page as the declarations say it, its tables not yet aligned. */
export function configurationPage(): string {
  return `${INTRODUCTION}\n${settingsReference({ 'the API': API_SETTINGS, 'the worker': WORKER_SETTINGS })}`;
}

/** The page formatted as the repository's Markdown is (Prettier aligns the tables). */
async function formattedPage(): Promise<string> {
  // loaded here: Prettier's CommonJS entry loads ES modules, which the test runner does not
  const { format, resolveConfig } = await import('prettier');
  const options = await resolveConfig(CONFIGURATION_PAGE);
  return format(configurationPage(), { ...options, filepath: CONFIGURATION_PAGE });
}

if (require.main === module) {
  void formattedPage().then((page) => writeFileSync(CONFIGURATION_PAGE, page));
}
