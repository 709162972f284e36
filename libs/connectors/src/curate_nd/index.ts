export { curateNdConnector } from './curate_nd.connector';
export type { CurateNdOptions } from './options';
