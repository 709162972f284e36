import { ServiceError } from '@app/common';

/** How many refused names, and files, an answer lists. */
const LISTED = 5;

/** The target's rules for what its writer takes (Connector.nameProblem and fileSizeProblem). */
export interface WritableRules {
  nameProblem(name: string): string | null;
  fileSizeProblem?(size: number): string | null;
}

/**
 * Checks everything an upload would write (the new project's title, each folder and file of the payload, each
 * file's size) against the target's rules before the 202, so that a package the target cannot hold is refused
 * whole rather than failing halfway through writing. Files are given one at a time, as the package is
 * inspected.
 */
export class WritableCheck {
  private readonly refusedNames: string[] = [];
  /** each refused name is listed once, wherever else it appears */
  private readonly seenNames = new Set<string>();
  private readonly refusedFiles: string[] = [];
  /** the folders already checked: a bag's files share few folders, and each is checked once */
  private readonly checkedFolders = new Set<string>();

  constructor(private readonly rules: WritableRules) {}

  project(title: string): void {
    this.checkName(title, title);
  }

  /** Each segment of a payload path (relative to where the upload writes), and the file's size. */
  file(path: string, size: number): void {
    const segments = path.split('/');
    let folder = '';
    segments.forEach((name, index) => {
      const where = folder === '' ? name : `${folder}/${name}`;
      const isFolder = index < segments.length - 1;
      if (!isFolder || !this.checkedFolders.has(where)) this.checkName(name, where);
      if (isFolder) this.checkedFolders.add(where);
      folder = where;
    });
    const problem = this.rules.fileSizeProblem?.(size);
    if (problem && this.refusedFiles.length < LISTED) this.refusedFiles.push(`'${path}' (${problem})`);
  }

  /** Refuses the package when any name or file was refused, naming the first few. */
  finish(): void {
    const problems = [
      ...(this.refusedNames.length > 0
        ? [`The target cannot hold these names: ${this.refusedNames.join('; ')}.`]
        : []),
      ...(this.refusedFiles.length > 0
        ? [`The target cannot take these files: ${this.refusedFiles.join('; ')}.`]
        : []),
    ];
    if (problems.length > 0) throw ServiceError.badRequest(`PresQT Error: ${problems.join(' ')}`);
  }

  private checkName(name: string, where: string): void {
    if (this.seenNames.has(name)) return;
    const problem = this.rules.nameProblem(name);
    if (!problem) return;
    this.seenNames.add(name);
    if (this.refusedNames.length < LISTED) this.refusedNames.push(`'${where}' (${problem})`);
  }
}
