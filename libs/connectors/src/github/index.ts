export { githubConnector } from './github.connector';
export type { GitHubOptions } from './options';
