import { ServiceError } from '@app/common';
import type { UploadedBag } from '@app/jobs';

/** How many refused names an answer lists. */
const LISTED = 5;

/**
 * Checks every name an upload would write (the new project's title, each folder and file of the payload)
 * against the target's rule before the 202, so that a package the target cannot hold is refused whole
 * rather than failing halfway through writing.
 */
export function checkNamesFor(bag: UploadedBag, nameProblem: (name: string) => string | null): void {
  const refused: string[] = [];
  const seen = new Set<string>();
  const check = (name: string, where: string) => {
    if (seen.has(name)) return;
    seen.add(name);
    const problem = nameProblem(name);
    if (problem && refused.length < LISTED) refused.push(`'${where}' (${problem})`);
  };
  if (bag.projectTitle !== null) check(bag.projectTitle, bag.projectTitle);
  for (const file of bag.payload) {
    const segments = file.path.split('/');
    segments.forEach((name, index) => check(name, segments.slice(0, index + 1).join('/')));
  }
  if (refused.length > 0)
    throw ServiceError.badRequest(`PresQT Error: The target cannot hold these names: ${refused.join('; ')}.`);
}
