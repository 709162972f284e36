import { ServiceError } from '@app/common';

/** How many refused names an answer lists. */
const LISTED = 5;

/**
 * Checks every name an upload would write (the new project's title, each folder and file of the payload)
 * against the target's rule before the 202, so that a package the target cannot hold is refused whole
 * rather than failing halfway through writing. Files are given one at a time, as the package is inspected.
 */
export class NameCheck {
  private readonly refused: string[] = [];
  /** each refused name is listed once, wherever else it appears */
  private readonly refusedNames = new Set<string>();
  /** the folders already checked: a bag's files share few folders, and each is checked once */
  private readonly checkedFolders = new Set<string>();

  constructor(private readonly nameProblem: (name: string) => string | null) {}

  project(title: string): void {
    this.check(title, title);
  }

  /** Each segment of a payload path (relative to where the upload writes). */
  file(path: string): void {
    const segments = path.split('/');
    let folder = '';
    segments.forEach((name, index) => {
      const where = folder === '' ? name : `${folder}/${name}`;
      const isFolder = index < segments.length - 1;
      if (!isFolder || !this.checkedFolders.has(where)) this.check(name, where);
      if (isFolder) this.checkedFolders.add(where);
      folder = where;
    });
  }

  /** Refuses the package when any name was refused, naming the first few. */
  finish(): void {
    if (this.refused.length > 0)
      throw ServiceError.badRequest(
        `PresQT Error: The target cannot hold these names: ${this.refused.join('; ')}.`,
      );
  }

  private check(name: string, where: string): void {
    if (this.refusedNames.has(name)) return;
    const problem = this.nameProblem(name);
    if (!problem) return;
    this.refusedNames.add(name);
    if (this.refused.length < LISTED) this.refused.push(`'${where}' (${problem})`);
  }
}
