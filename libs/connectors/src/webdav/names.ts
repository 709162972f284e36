import { portableNameProblem } from '../name-rules';

/**
 * Why a WebDAV server refuses a name: what no target takes (name-rules), and `.htaccess`, which Nextcloud
 * refuses by default (`forbidden_filenames` in its config.sample.php) since a web server would read it.
 */
export function webdavNameProblem(name: string): string | null {
  if (name.toLowerCase() === '.htaccess') return 'Nextcloud refuses it, as the web server would read it';
  return portableNameProblem(name);
}
