export { curateNdConnector } from './curate-nd.connector';
export type { CurateNdOptions } from './options';
