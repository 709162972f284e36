export { invenioRdmConnector } from './invenio_rdm.connector';
export type { InvenioRdmOptions } from './options';
