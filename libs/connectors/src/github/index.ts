export { githubConnector } from './github.connector';
export { gitHostOf, type GitHubOptions } from './options';
