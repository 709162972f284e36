import { ConnectorError } from '../connector-error';

/**
 * The names Dataverse takes. A file's name (its label) may not hold `: < > ; # / " * | ? \` nor be blank
 * (FileMetadata.label's `@Pattern` and `@NotBlank` in IQSS/dataverse). A folder's name, a part of a file's
 * "File Path" (`directoryLabel`), may hold only letters, digits, `_`, `-`, `.` and spaces
 * (FileDirectoryNameValidator: `[\w\\/. -]+`, `\w` being ASCII in Java), and Dataverse strips `.`, `-` and
 * spaces from either end of a path (StringUtil.sanitizeFileDirectory): a folder so named would come back
 * under another name, so it is refused.
 */

const LABEL_FORBIDDEN = /[:<>;#/"*|?\\]/;
const FOLDER_CHARACTERS = /^[A-Za-z0-9_. -]+$/;
const FOLDER_ENDS = /^[.\- ]|[.\- ]$/;

/** Why Dataverse refuses a file's name, or null when it takes it. */
export function fileNameProblem(name: string): string | null {
  if (name.trim() === '') return 'it is blank';
  if (LABEL_FORBIDDEN.test(name)) return 'Dataverse refuses : < > ; # / " * | ? and \\ in file names';
  if (name === '.' || name === '..' || name.includes('\0')) return 'it is not a name';
  return null;
}

/** Why Dataverse cannot keep a folder of this name as it is, or null when it can. */
export function folderNameProblem(name: string): string | null {
  if (!FOLDER_CHARACTERS.test(name))
    return 'Dataverse folder names hold only letters, digits, _, -, . and spaces';
  if (FOLDER_ENDS.test(name) || name === '.' || name === '..')
    return 'Dataverse strips ., - and spaces from the ends of folder names';
  return null;
}

/** ConnectorError 400 naming the first name of `folders` and `name` that Dataverse cannot keep. */
export function checkNames(folders: readonly string[], name: string): void {
  const refused = (what: string, problem: string | null) => {
    if (problem)
      throw new ConnectorError(400, `'${what}' cannot be used as a name on Dataverse: ${problem}.`);
  };
  for (const folder of folders) refused(folder, folderNameProblem(folder));
  refused(name, fileNameProblem(name));
}
