export { gitlabConnector } from './gitlab.connector';
export type { GitlabOptions } from './options';
