import { randomUUID } from 'node:crypto';
import { rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ConnectorError } from '../connector-error';
import { readSmallJson, strings } from './disk';
import { locate } from './locate';
import type { FilesystemSession } from './session';
import { PARTIAL_PREFIX } from './writing';

/** The target's own keyword store of a project or folder: a JSON array of strings in a reserved file. */
export const KEYWORDS_FILE = '.presqt-keywords.json';

/** The target's own keywords of a folder; none when its file is absent or unreadable. */
export async function readKeywordsFile(dir: string): Promise<string[]> {
  return strings(await readSmallJson(join(dir, KEYWORDS_FILE)));
}

export async function keywords(session: FilesystemSession, id: string): Promise<string[]> {
  return readKeywordsFile(await keywordsDir(session, id));
}

/** Replaces the keywords file whole (a new file renamed into place). */
export async function setKeywords(
  session: FilesystemSession,
  id: string,
  keywords: readonly string[],
): Promise<string[]> {
  const dir = await keywordsDir(session, id);
  const temporary = join(dir, `${PARTIAL_PREFIX}${randomUUID()}`);
  await writeFile(temporary, JSON.stringify([...keywords]));
  await rename(temporary, join(dir, KEYWORDS_FILE));
  return [...keywords];
}

/** Keywords belong to folders and projects, kept in a reserved file inside them. */
async function keywordsDir(session: FilesystemSession, id: string): Promise<string> {
  const { absolute, stats } = await locate(session, id);
  if (!stats.isDirectory())
    throw new ConnectorError(400, 'PresQT Error: files on this target have no keywords.');
  return absolute;
}
