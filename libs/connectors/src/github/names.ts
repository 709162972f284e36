/**
 * How titles and keywords become the names GitHub accepts: repository names of ASCII letters, digits, `.`,
 * `-` and `_`; topics of lower-case letters, digits and hyphens
 * (https://docs.github.com/en/repositories/managing-your-repositorys-settings-and-features/customizing-your-repository/classifying-your-repository-with-topics).
 */

const REPOSITORY_NAME_LENGTH = 100;
const TOPIC_LENGTH = 50;
export const MAX_TOPICS = 20;

/** Letters without their accents, so that `Café` becomes `Cafe` rather than `Caf-`. */
export function withoutAccents(text: string): string {
  return text.normalize('NFKD').replace(/[\u0300-\u036f]/g, '');
}

/** A repository name for a title: each run of other characters (spaces too) becomes `-`. */
export function repositoryName(title: string): string {
  const name = withoutAccents(title)
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, REPOSITORY_NAME_LENGTH);
  // `.` and `..` are not names, and nothing is left of a title in another script
  return /^\.*$/.test(name) ? 'untitled' : name;
}

/** The n-th name for a title the user already has: `Title`, `Title-2`, `Title-3`, ... */
export function numberedName(name: string, n: number): string {
  if (n === 1) return name;
  const suffix = `-${n}`;
  return `${name.slice(0, REPOSITORY_NAME_LENGTH - suffix.length)}${suffix}`;
}

/** The topic GitHub can keep for a keyword, or null when nothing of it is left. */
export function topicOf(keyword: string): string | null {
  const topic = withoutAccents(keyword)
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+/, '')
    .slice(0, TOPIC_LENGTH)
    .replace(/-+$/, '');
  return topic === '' ? null : topic;
}

/** The topics for keywords: each mapped, without repeats, the first 20 (GitHub keeps no more). */
export function topicsOf(keywords: readonly string[]): string[] {
  const topics = keywords.map(topicOf).filter((topic): topic is string => topic !== null);
  return [...new Set(topics)].slice(0, MAX_TOPICS);
}
