import { Option } from 'commander';

/** Options shared by the commands that start jobs. */
export const emailOption = () =>
  new Option('--email <address>', 'have the service email this address when the job ends').default('');

export const duplicateOption = () =>
  new Option(
    '--duplicate <action>',
    'files already at the destination: leave them (ignore) or replace those that differ (update)',
  )
    .choices(['ignore', 'update'])
    .default('ignore');
