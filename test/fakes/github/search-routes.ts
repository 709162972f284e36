import type { Call, FakeGitHub } from './fake-github';
import { repositoryJson, type FakeRepository } from './representations';

/** GitHub serves the first 1,000 results of a search (https://docs.github.com/en/rest/search/search#about-search). */
const SEARCH_RESULTS = 1000;

interface Query {
  /** words and quoted phrases, all of which must match */
  terms: string[];
  /** `in:name`, `in:description`, `in:topics`, `in:readme`; none means name, description and topics */
  fields: string[];
  users: string[];
  topics: string[];
  /** `fork:only` (the fake's repositories are never forks; without `fork:true` GitHub leaves forks out) */
  forksOnly: boolean;
}

/**
 * A query of keywords and qualifiers (https://docs.github.com/en/search-github/searching-on-github/searching-for-repositories):
 * the qualifiers the connector sends are `user:`, `in:`, `topic:` and `fork:`; a quoted phrase is one term.
 */
function parse(q: string): Query {
  const query: Query = { terms: [], fields: [], users: [], topics: [], forksOnly: false };
  for (const token of q.match(/"[^"]*"|\S+/g) ?? []) {
    const [, qualifier, value] =
      /^(user|in|topic|fork):(.+)$/i.exec(token)?.map((part) => part.toLowerCase()) ?? [];
    if (qualifier === undefined) query.terms.push(token.replace(/^"|"$/g, ''));
    else if (qualifier === 'user') query.users.push(value);
    else if (qualifier === 'in') query.fields.push(...value.split(','));
    else if (qualifier === 'topic') query.topics.push(value);
    else query.forksOnly = value === 'only';
  }
  return query;
}

/**
 * Whether a term matches a text the way GitHub's word search does, roughly: case aside, with punctuation
 * (the hyphens of `Coral-Reef-Survey`) read as spaces between words.
 */
function matches(text: string, term: string): boolean {
  const words = (value: string) =>
    ` ${value
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, ' ')
      .trim()} `;
  return words(text).includes(words(term));
}

/** Without `in:`, GitHub searches the name, the description and the topics (the page above). */
function fieldsOf(repository: FakeRepository, fields: string[], readme: string): string[] {
  const wanted = fields.length > 0 ? fields : ['name', 'description', 'topics'];
  return [
    ...(wanted.includes('name') ? [repository.name] : []),
    ...(wanted.includes('description') ? [repository.description ?? ''] : []),
    ...(wanted.includes('topics') ? repository.topics : []),
    ...(wanted.includes('readme') ? [readme] : []),
  ];
}

export function searchRoutes(fake: FakeGitHub): void {
  const found = (call: Call, query: Query) =>
    [...fake.repositories.values()].filter((repository) => {
      if (query.forksOnly || (repository.private && repository.owner !== call.viewer)) return false;
      if (query.users.length > 0 && !query.users.includes(repository.owner.login.toLowerCase())) return false;
      if (!query.topics.every((topic) => repository.topics.includes(topic))) return false;
      const readme = fake.files(repository).get('README.md')?.toString('utf8') ?? '';
      const texts = fieldsOf(repository, query.fields, readme);
      return query.terms.every((term) => texts.some((text) => matches(text, term)));
    });

  // https://docs.github.com/en/rest/search/search#search-repositories (its own rate limit, 30 a minute)
  fake.serve(
    'GET',
    '/search/repositories',
    (call) => {
      const params = call.request.url.searchParams;
      const q = params.get('q');
      if (!q)
        return call.fail(422, 'Validation Failed', {
          errors: [{ resource: 'Search', field: 'q', code: 'missing' }],
        });
      const query = parse(q);
      if (query.users.some((login) => !fake.account(login))) {
        return call.fail(422, 'Validation Failed', {
          errors: [
            {
              message:
                'The listed users and repositories cannot be searched either because the resources do not exist or you do not have permission to view them.',
              resource: 'Search',
              field: 'q',
              code: 'invalid',
            },
          ],
        });
      }
      const perPage = Math.min(100, Number(params.get('per_page')) || 30);
      const page = Number(params.get('page')) || 1;
      if ((page - 1) * perPage >= SEARCH_RESULTS)
        return call.fail(422, 'Only the first 1000 search results are available');
      let results = found(call, query);
      if (params.get('sort') === 'updated') {
        const sign = params.get('order') === 'asc' ? 1 : -1;
        results = results.sort((a, b) => sign * (Date.parse(a.updatedAt) - Date.parse(b.updatedAt)));
      }
      const items = fake.page(call, results.slice(0, SEARCH_RESULTS));
      call.reply(200, {
        total_count: results.length,
        incomplete_results: false,
        items: items.map((repository) => ({
          ...repositoryJson(repository, fake.hosts, call.viewer),
          score: 1,
        })),
      });
    },
    { rate: 'search' },
  );
}
