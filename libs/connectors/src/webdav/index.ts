export { webdavConnector } from './webdav.connector';
export type { WebdavOptions } from './options';
