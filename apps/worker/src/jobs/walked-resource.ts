import {
  isTopMetadataFile,
  readMetadataFile,
  type ConnectorSession,
  type RemoteFile,
  type RemoteFolder,
} from '@app/connectors';
import type { FtsMetadata } from '@app/metadata';
import type { JobContext } from './job-context';

/**
 * A resource a job copies (a download's or a transfer's source), walked. Its own metadata file
 * (PRESQT_FTS_METADATA.json at its top; docs/behaviour.md#metadata-file), when valid, is not among the
 * entries: it is read, to be merged into the file the job writes, and counted done as far as progress goes.
 * An invalid one stays among the entries, for the job to copy as a file.
 */
export class WalkedResource {
  /** the resource's own metadata file, once the walk has passed it; null when it has no valid one */
  ownMetadata: FtsMetadata | null = null;

  constructor(
    private readonly session: ConnectorSession,
    private readonly resource: { id: string; title: string },
    private readonly context: JobContext,
    private readonly workDir: string,
  ) {}

  async *entries(): AsyncIterable<RemoteFolder | RemoteFile> {
    for await (const entry of this.session.walk(this.resource.id, { workDir: this.workDir })) {
      if (entry.kind === 'file' && this.isOwnMetadata(entry)) {
        this.ownMetadata = await readMetadataFile(entry);
        if (this.ownMetadata) {
          this.context.addBytes(entry.size);
          this.context.fileFinished();
          continue;
        }
      }
      yield entry;
    }
  }

  /** Whether a file is the resource's own metadata file: among the entries, an invalid one. */
  isOwnMetadata(file: RemoteFile): boolean {
    return isTopMetadataFile(file, this.resource.title);
  }
}
