export { s3Connector } from './s3.connector';
export type { S3Options } from './options';
