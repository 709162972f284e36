import { Option, type Command } from 'commander';
import { parseAddress } from '../address';
import { resourcesPath } from '../client';
import { EXIT } from '../errors';
import { followJob, jobHeaders } from '../job';
import type { Session } from '../session';
import { duplicateOption, emailOption } from './options';
import { reportWrite } from './report';

interface TransferOptions {
  duplicate: string;
  keywordAction: string;
  keyword: string[];
  email: string;
}

export function registerTransfer(program: Command, session: (command: Command) => Session): void {
  program
    .command('transfer')
    .description('copy a resource from one target to another, checksums verified, keywords carried along')
    .argument('<source:id>', 'the resource to copy')
    .argument(
      '<destination[:container]>',
      'the target, and the container to copy into (default: a new project)',
    )
    .addOption(duplicateOption())
    .addOption(
      new Option(
        '--keyword-action <action>',
        "the destination's keywords: none, manual (the source's and each --keyword) or automatic (also those an enhancer suggests)",
      )
        .choices(['none', 'manual', 'automatic'])
        .default('manual'),
    )
    .option(
      '--keyword <word>',
      'a keyword to add (repeat for more)',
      (word: string, words: string[]) => [...words, word],
      [],
    )
    .addOption(emailOption())
    .action(async (source: string, destination: string, options: TransferOptions, command: Command) =>
      transfer(session(command), source, destination, options),
    );
}

async function transfer(
  session: Session,
  source: string,
  destination: string,
  options: TransferOptions,
): Promise<void> {
  const from = parseAddress(source, true);
  const to = parseAddress(destination, false);
  const headers = await jobHeaders(session, 'transfer', [from.target, to.target]);
  await session.client.json(resourcesPath(to.target, to.id), {
    method: 'POST',
    headers: {
      ...headers,
      'content-type': 'application/json',
      'presqt-file-duplicate-action': options.duplicate,
      'presqt-keyword-action': options.keywordAction,
      'presqt-email-opt-in': options.email,
    },
    body: JSON.stringify({
      source_target_name: from.target,
      source_resource_id: from.id,
      keywords: options.keyword,
    }),
    expect: [202],
  });
  const finished = await followJob(session, 'transfer', headers);
  session.output.result(finished, () => [
    `${finished.message} ${to.target}:${finished.destination_resource_id}`,
    ...(finished.enhanced_keywords.length > 0
      ? [`keywords added: ${finished.enhanced_keywords.join(', ')}`]
      : []),
    ...reportWrite(finished),
  ]);
  if (finished.failed_fixity.length > 0) process.exitCode = EXIT.fixity;
}
