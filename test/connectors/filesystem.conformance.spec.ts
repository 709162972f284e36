import { filesystemConnector } from '@app/connectors/filesystem';
import { describeConnector } from '../conformance/describe-connector';
import { filesystemUnderTest } from '../support/fs-fixtures';

describeConnector(filesystemConnector, filesystemUnderTest);
