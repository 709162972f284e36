import { ConnectorError } from '../connector-error';
import { isFolder, requireWritable, OSF_STORAGE, type Entity } from './entities';
import { locate, nodeOfLocated, type Located } from './locate';
import type { OsfSession } from './session';

type Tagged = Entity<{ tags?: string[] }>;

/** OSF's tags of a project, component or osfstorage file. */
export async function keywords({ api }: OsfSession, id: string): Promise<string[]> {
  return taggable(await locate(api, id)).attributes.tags ?? [];
}

/** Replaces the tags (PATCH the node or the file) and answers them as OSF stored them. */
export async function setKeywords(
  { api }: OsfSession,
  id: string,
  tags: readonly string[],
): Promise<string[]> {
  const located = await locate(api, id);
  const tagged = taggable(located);
  requireWritable(await nodeOfLocated(api, located));
  const updated = await api.update(tagged, { tags: [...tags] });
  return updated.attributes.tags ?? [];
}

/**
 * The entity whose tags are a resource's keywords. OSF keeps tags on nodes and on osfstorage files only:
 * it has none for storages or folders, and refuses tags on other providers' files (409).
 */
function taggable(located: Located): Tagged {
  switch (located.kind) {
    case 'node':
      return located.node;
    case 'storage':
      throw new ConnectorError(
        400,
        "On OSF only projects, components and files have keywords, not storages, therefore PresQT keyword features are not supported at OSF's storage level.",
      );
    case 'file':
      if (isFolder(located.file))
        throw new ConnectorError(
          400,
          'OSF keeps no keywords (tags) on folders; add them to the project or to its files.',
        );
      if (located.file.attributes.provider !== OSF_STORAGE)
        throw new ConnectorError(
          400,
          `OSF keeps keywords (tags) only on files in OSF Storage, not on files in ${located.file.attributes.provider}.`,
        );
      return located.file;
  }
}
