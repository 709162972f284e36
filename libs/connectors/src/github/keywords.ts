import { ConnectorError } from '../connector-error';
import type { GitHubRepository } from './entities';
import { parseResourceId } from './ids';
import { locate } from './locate';
import { topicsOf } from './names';
import type { GitHubSession } from './session';

/** A repository's topics. */
export async function keywords(session: GitHubSession, id: string): Promise<string[]> {
  return session.api.topics(await repositoryWithTopics(session, id));
}

/** Replaces a repository's topics with the keywords made topics; the topics as GitHub stored them. */
export async function setKeywords(
  session: GitHubSession,
  id: string,
  keywords: readonly string[],
): Promise<string[]> {
  return session.api.replaceTopics(await repositoryWithTopics(session, id), topicsOf(keywords));
}

/** Only repositories have topics: a folder or file id answers 400 (404 when it names nothing). */
async function repositoryWithTopics({ api }: GitHubSession, id: string): Promise<GitHubRepository> {
  const address = parseResourceId(id);
  if (!address) throw ConnectorError.unknownResource(id);
  if (address.path.length === 0) return api.repository(address.repositoryId, id);
  await locate(api, id);
  throw new ConnectorError(
    400,
    "On GitHub only repositories have keywords (their topics), not folders or files, so PresQT keyword features are not supported at GitHub's folder or file level.",
  );
}
