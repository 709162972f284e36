import type { ConnectorDefinition } from './connector';
import { curateNdConnector } from './curate_nd';
import { dataverseConnector } from './dataverse';
import { figshareConnector } from './figshare';
import { filesystemConnector } from './filesystem';
import { githubConnector } from './github';
import { gitlabConnector } from './gitlab';
import { invenioRdmConnector } from './invenio_rdm';
import { osfConnector } from './osf';
import { s3Connector } from './s3';
import { webdavConnector } from './webdav';
import { zenodoConnector } from './zenodo';

/** Every connector this build can serve; a targets-file entry names one in its `connector` field. */
export const CONNECTORS: readonly ConnectorDefinition[] = [
  filesystemConnector,
  curateNdConnector,
  osfConnector,
  githubConnector,
  gitlabConnector,
  zenodoConnector,
  figshareConnector,
  dataverseConnector,
  invenioRdmConnector,
  webdavConnector,
  s3Connector,
];

/** Every name a targets-file entry may give in its `connector` field. */
export const CONNECTOR_NAMES: readonly string[] = CONNECTORS.map((definition) => definition.name).sort();

export function findConnector(name: string): ConnectorDefinition | undefined {
  return CONNECTORS.find((definition) => definition.name === name);
}
