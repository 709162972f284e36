export { dataverseConnector } from './dataverse.connector';
export type { DataverseOptions } from './options';
