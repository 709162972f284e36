import type { StoredProject } from './model';

/**
 * Paging, ordering and searching of lists, as the API feature list describes them
 * (https://docs.figshare.com/old_docs/api/, "Pagination", "Searching, filtering and ordering") with the bounds of
 * the OpenAPI description's parameters: `page` 1 to 5000 with `page_size` 1 to 1000 (default 10), or `offset`
 * 0 to 5000 with `limit` 1 to 1000.
 */

/** A parameter from a query string (text) or a JSON body (a number). */
type Lookup = (name: string) => unknown;

export type Window = { offset: number; limit: number } | { error: string };

function integer(value: unknown, min: number, max: number): number | null {
  const number = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  return Number.isInteger(number) && (number as number) >= min && (number as number) <= max
    ? (number as number)
    : null;
}

export function queryLookup(query: URLSearchParams): Lookup {
  return (name) => query.get(name) ?? undefined;
}

export function bodyLookup(body: Record<string, unknown>): Lookup {
  return (name) => body[name];
}

/** The slice of a list the paging parameters ask for; using both kinds of paging at once is refused. */
export function window(lookup: Lookup): Window {
  const given = (name: string) => lookup(name) !== undefined;
  const pageParameters = given('page') || given('page_size');
  const offsetParameters = given('offset') || given('limit');
  if (pageParameters && offsetParameters)
    return { error: 'Use either page and page_size or offset and limit, not both' };
  const read = (name: string, fallback: number, min: number, max: number) =>
    given(name) ? integer(lookup(name), min, max) : fallback;
  if (offsetParameters) {
    const offset = read('offset', 0, 0, 5000);
    const limit = read('limit', 10, 1, 1000);
    if (offset === null || limit === null) return { error: 'Invalid value received for offset or limit' };
    return { offset, limit };
  }
  const page = read('page', 1, 1, 5000);
  const pageSize = read('page_size', 10, 1, 1000);
  if (page === null || pageSize === null) return { error: 'Invalid value received for page or page_size' };
  return { offset: (page - 1) * pageSize, limit: pageSize };
}

type ProjectOrder = (a: StoredProject, b: StoredProject) => number;

/**
 * The order of `order` and `order_direction` (defaults `published_date`, `desc`). Nothing in the fake is
 * published nor viewed, so `published_date` and `views` leave every project equal; the fake then orders by
 * id, in the direction asked, which is creation order.
 */
export function projectOrder(lookup: Lookup): ProjectOrder | { error: string } {
  const order = lookup('order') ?? 'published_date';
  const direction = lookup('order_direction') ?? 'desc';
  if (direction !== 'asc' && direction !== 'desc')
    return { error: 'Invalid value received for order_direction' };
  const sign = direction === 'asc' ? 1 : -1;
  const byId: ProjectOrder = (a, b) => sign * (a.id - b.id);
  if (order === 'published_date' || order === 'views') return byId;
  if (order === 'modified_date') return (a, b) => sign * a.modified.localeCompare(b.modified) || byId(a, b);
  return { error: 'Invalid value received for order' };
}

function words(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** Whether the words of `phrase` stand one after another in `text`. */
function containsPhrase(text: string, phrase: string[]): boolean {
  const tokens = words(text);
  for (let start = 0; start + phrase.length <= tokens.length; start++)
    if (phrase.every((word, offset) => tokens[start + offset] === word)) return true;
  return false;
}

/**
 * A predicate for `search_for`: its words and quoted phrases must all stand, case aside, in the project's
 * title or description; after the field operator `:title:` (`":title: coral reef"`) in its title only
 * (https://docs.figshare.com/old_docs/api/, "Searching, filtering and ordering": field operators).
 */
export function projectMatcher(searchFor: string): (project: StoredProject) => boolean {
  const field = /^\s*:(\w+):\s*(.*)$/s.exec(searchFor);
  if (field && field[1] !== 'title' && field[1] !== 'description') return () => false;
  const query = field ? field[2] : searchFor;
  const terms = [...query.matchAll(/"([^"]*)"|([^\s"]+)/g)]
    .map((match) => words(match[1] ?? match[2]))
    .filter((phrase) => phrase.length > 0);
  const texts = (project: StoredProject) => {
    if (field?.[1] === 'title') return [project.title];
    if (field?.[1] === 'description') return [project.description];
    return [project.title, project.description];
  };
  return (project) => terms.every((phrase) => texts(project).some((text) => containsPhrase(text, phrase)));
}
