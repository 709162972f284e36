import { ConnectorError } from '../connector-error';
import type { WebdavSession } from './session';

/**
 * WebDAV keeps no keywords of a folder: RFC 4918 has none, Nextcloud's tags are private to each user or need
 * an administrator (system tags), and a plain server has neither. The keywords a transfer carries are kept in
 * the project's PRESQT_FTS_METADATA.json, which every upload and transfer writes, and read from it again when
 * the project is the source of a transfer (docs/targets/webdav.md#keywords).
 */
function noKeywords(): never {
  throw new ConnectorError(
    400,
    'A WebDAV server keeps no keywords of its own; they are kept in PRESQT_FTS_METADATA.json.',
  );
}

export async function keywords(_session: WebdavSession, _id: string): Promise<string[]> {
  return noKeywords();
}

export async function setKeywords(
  _session: WebdavSession,
  _id: string,
  _keywords: readonly string[],
): Promise<string[]> {
  return noKeywords();
}
