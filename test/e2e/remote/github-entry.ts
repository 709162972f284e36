import type { FakeGitHub } from '../../fakes/github/fake-github';
import { ALL_ACTIONS } from '../../support/fs-fixtures';

/** The targets-file entry of a GitHub target at the fake, its API and its git host (for LFS). */
export function githubEntry(fake: FakeGitHub, gitUrl: string): Record<string, unknown> {
  return {
    readable_name: 'GitHub',
    status_url: `${fake.server.url}/rate_limit`,
    token_url: 'https://github.com/settings/tokens',
    supported_actions: ALL_ACTIONS,
    supported_hash_algorithms: [],
    infinite_depth: true,
    search_parameters: ['general', 'title', 'id', 'author', 'keywords'],
    connector: 'github',
    options: { api_url: fake.server.url, git_url: gitUrl },
  };
}
