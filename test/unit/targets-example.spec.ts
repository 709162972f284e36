import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findConnector } from '@app/connectors';
import { loadTargetsFile } from '@app/targets';
import { capabilityProblems } from '@app/targets/entry-capabilities';

const read = (file: string): unknown[] =>
  JSON.parse(readFileSync(join(__dirname, '../../config', file), 'utf8'));

/**
 * config/targets.example.json holds entries whose URLs are each institution's own (S3 storage, WebDAV), to be copied
 * into a targets file: each must be one the service would start with, beside the shipped ones.
 */
describe('the example targets file', () => {
  it('holds entries the service takes beside the shipped targets file', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'presqt-targets-')), 'targets.json');
    writeFileSync(file, JSON.stringify([...read('targets.json'), ...read('targets.example.json')]));
    const entries = loadTargetsFile(file, (entry) => {
      const definition = findConnector(entry.connector);
      if (!definition) return [`no connector ${entry.connector}`];
      return [
        ...definition.validateOptions(entry.options ?? {}),
        ...capabilityProblems(entry, definition.capabilities),
      ];
    });
    expect(entries.map((entry) => entry.name)).toEqual(expect.arrayContaining(['s3', 'webdav']));
  });
});
