/** A plain JSON object (not an array, not null). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** What one option of a targets-file entry may hold. */
export type OptionRule =
  /** an http(s) base URL without credentials (the token comes with each request), query or fragment */
  | { kind: 'url' }
  /** a non-empty list of such URLs */
  | { kind: 'url list' }
  | { kind: 'boolean' }
  | { kind: 'integer'; min: number; max: number }
  | { kind: 'one of'; values: readonly string[] }
  /** a string matching `pattern`, which `expected` words for the problem (e.g. a collection's alias) */
  | { kind: 'text'; pattern: RegExp; expected: string };

/**
 * Every problem of an entry's `options` against the rules of its connector, each naming the option. Values
 * are never quoted: a URL may carry credentials, and the problems may be logged.
 */
export function checkOptions(options: unknown, rules: Readonly<Record<string, OptionRule>>): string[] {
  if (!isRecord(options)) return ['options must be an object'];
  const known = Object.keys(rules);
  const problems = Object.keys(options)
    .filter((key) => !known.includes(key))
    .map((key) => `options.${key} is not a known option (${known.join(', ')})`);
  for (const [key, rule] of Object.entries(rules)) {
    const problem = options[key] === undefined ? null : ruleProblem(options[key], rule);
    if (problem) problems.push(`options.${key} ${problem}`);
  }
  return problems;
}

function ruleProblem(value: unknown, rule: OptionRule): string | null {
  switch (rule.kind) {
    case 'url':
      return urlProblem(value);
    case 'url list':
      return urlListProblem(value);
    case 'boolean':
      return typeof value === 'boolean' ? null : 'must be true or false';
    case 'integer':
      return Number.isInteger(value) && Number(value) >= rule.min && Number(value) <= rule.max
        ? null
        : `must be an integer from ${rule.min} to ${rule.max}`;
    case 'one of':
      return typeof value === 'string' && rule.values.includes(value)
        ? null
        : `must be one of ${rule.values.join(', ')}`;
    case 'text':
      return typeof value === 'string' && rule.pattern.test(value) ? null : `must be ${rule.expected}`;
  }
}

function urlListProblem(value: unknown): string | null {
  if (!Array.isArray(value) || value.length === 0) return 'must be a non-empty list of http or https URLs';
  const problems = value.flatMap((url: unknown, index) => {
    const problem = urlProblem(url);
    return problem === null ? [] : [`entry ${index + 1} ${problem}`];
  });
  return problems.length === 0 ? null : problems.join('; ');
}

function urlProblem(value: unknown): string | null {
  let url: URL;
  try {
    url = new URL(String(value));
  } catch {
    return 'must be an http or https URL';
  }
  if (typeof value !== 'string' || (url.protocol !== 'https:' && url.protocol !== 'http:'))
    return 'must be an http or https URL';
  if (url.username !== '' || url.password !== '')
    return 'must not carry credentials: the token comes with each request';
  if (url.search !== '' || url.hash !== '') return 'must not have a query or a fragment';
  return null;
}
