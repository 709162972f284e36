export { osfConnector } from './osf.connector';
export { fileServiceOrigins, type OsfOptions } from './options';
