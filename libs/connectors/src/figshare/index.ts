export { figshareConnector } from './figshare.connector';
export type { FigshareOptions } from './options';
