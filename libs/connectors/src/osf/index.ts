export { osfConnector } from './osf.connector';
export type { OsfOptions } from './options';
