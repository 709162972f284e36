export { zenodoConnector } from './zenodo.connector';
export type { ZenodoOptions } from './options';
