/**
 * GitLab's rules for a project's name and path (`Gitlab::Regex.project_name_regex`, and the path rules of
 * https://docs.gitlab.com/user/reserved_names/): a name holds letters, digits, emoji, `_`, `.`, `+`, dashes
 * and spaces and starts with a letter, digit, emoji or `_`; a path holds letters, digits, `_`, `-` and `.`
 * and neither starts nor ends with a special character. Parentheses are not allowed, so a taken title is
 * numbered `Title 2`, `Title 3`, ..., with paths `title-2`, `title-3`.
 */

// Ruby's \p{Alnum} is Alphabetic or a decimal digit; GitLab also allows U+00A9..U+1F9FF (emoji and symbols)
const NAME_CHARACTER = /[\p{Alphabetic}\p{Nd}\p{Pd}_.+ \u00A9-\u{1F9FF}]/u;
const NAME_START = /[\p{Alphabetic}\p{Nd}_\u00A9-\u{1F9FF}]/u;
/** Both may be 255 characters; a number is yet to be appended. */
const MAX_BASE_LENGTH = 240;

export interface ProjectName {
  name: string;
  path: string;
}

/** A name GitLab takes for `title`: other characters become spaces, and it starts as GitLab requires. */
export function projectName(title: string): string {
  const characters = [...title].map((character) => (NAME_CHARACTER.test(character) ? character : ' '));
  let name = characters.join('').replace(/\s+/g, ' ').trim();
  while (name !== '' && !NAME_START.test([...name][0])) name = [...name].slice(1).join('').trim();
  return [...(name || 'Untitled')].slice(0, MAX_BASE_LENGTH).join('');
}

/** A path for the name: lower-case ASCII letters and digits joined by single dashes. */
export function projectPath(name: string): string {
  const path = name
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, MAX_BASE_LENGTH)
    .replace(/-+$/, '');
  return path || 'project';
}

/** The name and path to try the `attempt`th time (1 for the first) for a project titled `title`. */
export function numberedProjectName(title: string, attempt: number): ProjectName {
  const name = projectName(title);
  const path = projectPath(name);
  return attempt === 1 ? { name, path } : { name: `${name} ${attempt}`, path: `${path}-${attempt}` };
}
