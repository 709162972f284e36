import { Option, type Command } from 'commander';
import { parseAddress } from '../address';
import { resourcesPath } from '../client';
import { CliError, EXIT } from '../errors';
import { table } from '../output';
import type { Session } from '../session';

interface Target {
  name: string;
  readable_name: string;
  supported_actions: Record<string, boolean>;
  supported_transfer_partners: { transfer_in: string[]; transfer_out: string[] };
}

interface ResourceSummary {
  kind: string;
  kind_name: string;
  id: string;
  title: string;
}

interface ResourcePage {
  resources: ResourceSummary[];
  pages: { total_pages: number; per_page: number };
}

interface ResourceDetail extends ResourceSummary {
  date_modified: string | null;
  hashes: Record<string, string | null>;
  children: ResourceSummary[];
}

/** What each supported action lets a user do, in this program's words. */
const ACTION_WORDS: Record<string, string> = {
  resource_collection: 'ls',
  resource_download: 'download',
  resource_upload: 'upload',
  resource_transfer_out: 'transfer-out',
  resource_transfer_in: 'transfer-in',
  keywords_upload: 'keywords',
};

/** The API's search filters (one at a time), each an option of `ls`: commander's option key → filter. */
const FILTERS = [
  {
    option: 'search',
    filter: 'general',
    flag: '--search <text>',
    about: 'resources matching <text> anywhere',
  },
  { option: 'title', filter: 'title', flag: '--title <text>', about: 'resources whose title matches' },
  { option: 'author', filter: 'author', flag: '--author <name>', about: 'resources by this author' },
  { option: 'keywords', filter: 'keywords', flag: '--keywords <word>', about: 'resources with this keyword' },
  { option: 'id', filter: 'id', flag: '--id <id>', about: 'the resource with this id' },
] as const;

interface LsOptions extends Partial<Record<(typeof FILTERS)[number]['option'], string>> {
  page?: string;
  all?: boolean;
}

export function registerBrowsing(program: Command, session: (command: Command) => Session): void {
  program
    .command('targets')
    .description('list the targets (repositories) the service reaches, and what each can do')
    .action(async (_options: unknown, command: Command) => listTargets(session(command)));

  const ls = program
    .command('ls')
    .description("list the user's resources at a target, or a resource's details and children")
    .argument('<target[:id]>', 'a target, or a resource at it');
  for (const { flag, about } of FILTERS) ls.addOption(new Option(flag, about));
  ls.option('--page <n>', 'the page to show (collections are paged)')
    .option('--all', 'every page')
    .action(async (address: string, options: LsOptions, command: Command) =>
      list(session(command), address, options),
    );
}

async function listTargets(session: Session): Promise<void> {
  const { body } = await session.client.json<Target[]>('/api_v1/targets/', { signal: session.signal });
  session.output.result(body, () =>
    table([
      ['NAME', 'DESCRIPTION', 'CAN'],
      ...body.map((target) => [
        target.name,
        target.readable_name,
        Object.entries(ACTION_WORDS)
          .filter(([action]) => target.supported_actions[action])
          .map(([, word]) => word)
          .join(', '),
      ]),
    ]),
  );
}

async function list(session: Session, text: string, options: LsOptions): Promise<void> {
  const address = parseAddress(text, false);
  const query = searchQuery(options);
  const page = options.page === undefined ? 1 : Number(options.page);
  if (!Number.isInteger(page) || page < 1)
    throw new CliError('--page takes a whole number from 1.', EXIT.usage);
  const headers = { 'presqt-source-token': await session.tokenFor(address.target) };
  if (address.id !== undefined) {
    if (Object.keys(query).length > 0 || options.page || options.all)
      throw new CliError('Search and paging options apply to a target, not to one resource.', EXIT.usage);
    return showResource(session, address.target, address.id, headers);
  }
  if (options.all) return listEveryPage(session, address.target, headers, query);
  const { body } = await session.client.json<ResourcePage>(resourcesPath(address.target), {
    headers,
    query: { ...query, page },
    signal: session.signal,
  });
  session.output.result(body, () => resourceTable(body.resources));
  if (!session.output.json && page < body.pages.total_pages)
    session.output.note(
      `page ${page} of ${body.pages.total_pages}: --page ${page + 1} for the next, --all for every page`,
    );
}

/** The one search filter given, as the API's query parameter. */
function searchQuery(options: LsOptions): Record<string, string> {
  const given = FILTERS.filter(({ option }) => options[option] !== undefined);
  if (given.length > 1)
    throw new CliError(
      `Search with one filter at a time, not ${given.map(({ flag }) => flag.split(' ')[0]).join(' and ')}.`,
      EXIT.usage,
    );
  return Object.fromEntries(given.map(({ option, filter }) => [filter, options[option] ?? '']));
}

async function listEveryPage(
  session: Session,
  target: string,
  headers: Record<string, string>,
  query: Record<string, string | number>,
): Promise<void> {
  const resources: ResourceSummary[] = [];
  for (let page = 1, pages = 1; page <= pages; page++) {
    const { body } = await session.client.json<ResourcePage>(resourcesPath(target), {
      headers,
      query: { ...query, page },
      signal: session.signal,
    });
    resources.push(...body.resources);
    pages = body.pages.total_pages;
  }
  session.output.result({ resources }, () => resourceTable(resources));
}

async function showResource(session: Session, target: string, id: string, headers: Record<string, string>) {
  const { body } = await session.client.json<ResourceDetail>(resourcesPath(target, id, '.json/'), {
    headers,
    signal: session.signal,
  });
  session.output.result(body, () => [
    `${body.title} (${body.kind_name}, ${body.id})`,
    ...(body.date_modified ? [`modified ${body.date_modified}`] : []),
    ...Object.entries(body.hashes ?? {})
      .filter(([, hash]) => hash)
      .map(([algorithm, hash]) => `${algorithm} ${hash}`),
    ...(body.children.length > 0 ? ['', ...resourceTable(body.children)] : []),
  ]);
}

function resourceTable(resources: ResourceSummary[]): string[] {
  if (resources.length === 0) return ['(no resources)'];
  return table([
    ['ID', 'KIND', 'TITLE'],
    ...resources.map((resource) => [resource.id, resource.kind_name, resource.title]),
  ]);
}
