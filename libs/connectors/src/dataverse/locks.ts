import { setTimeout as sleep } from 'node:timers/promises';
import { ConnectorError } from '../connector-error';
import type { DatasetLock } from './entities';

/**
 * An edit Dataverse refused for a lock on the dataset: for certain (403 "Dataset cannot be edited due to
 * dataset lock."), or perhaps (an upload's 400 "Failed to add file to dataset.", which is also what a lock
 * gives there: AddReplaceFileHelper turns the lock's refusal into it). `otherwise` is the failure it stands
 * for when no lock explains it.
 */
export class DatasetLocked extends ConnectorError {
  constructor(
    message: string,
    readonly certain: boolean,
    readonly otherwise: ConnectorError,
  ) {
    super(409, message);
  }
}

/** The first pause after an edit was refused for a lock; it doubles up to MAX_POLL_MS. */
const FIRST_POLL_MS = 100;
const MAX_POLL_MS = 2000;

/**
 * Edits of a locked dataset, waited out. Dataverse locks a dataset while a workflow runs, while it publishes,
 * while another edit is saved (EditInProgress) and while it ingests tabular files after an upload (which
 * today's Dataverse lets uploads and metadata edits pass, but not deletions), and refuses edits meanwhile
 * (PermissionServiceBean.checkEditDatasetLock and checkUpdateDatasetVersionLock in IQSS/dataverse). The edit
 * is tried again once the dataset's locks (https://guides.dataverse.org/en/latest/api/native-api.html#dataset-locks)
 * are gone, within the wait the service allows an upstream (UPSTREAM_MAX_WAIT_MS); past it, or for a lock no
 * wait ends (a dataset in review, which waits on a curator), the edit fails saying so. A refusal that only
 * perhaps came from a lock is taken for one only while the dataset lists a lock, or once when it lists none
 * (the lock may have ended meanwhile).
 */
export class LockWait {
  constructor(
    private readonly locks: (datasetId: string) => Promise<DatasetLock[]>,
    private readonly maxWaitMs: number,
  ) {}

  /** `change` (an edit of the dataset), tried again after each lock that refused it. */
  async edit<T>(datasetId: string, change: () => Promise<T>): Promise<T> {
    const deadline = Date.now() + this.maxWaitMs;
    let unexplained = 0;
    for (let attempt = 0; ; attempt++) {
      let refused: DatasetLocked;
      try {
        return await change();
      } catch (error) {
        if (!(error instanceof DatasetLocked)) throw error;
        refused = error;
      }
      const sawLocks = await this.untilUnlocked(datasetId, deadline, refused.certain ? attempt : -1);
      if (!refused.certain && !sawLocks && unexplained++ > 0) throw refused.otherwise;
    }
  }

  /**
   * Waits until the dataset lists no lock, or fails when the deadline passes first; whether it listed any.
   * The first look comes after a pause that grows with `attempt`, or at once for an attempt of -1.
   */
  private async untilUnlocked(datasetId: string, deadline: number, attempt: number): Promise<boolean> {
    let seen: DatasetLock[] = [];
    let sawLocks = false;
    let pause = attempt < 0 ? 0 : FIRST_POLL_MS * 2 ** Math.min(attempt, 4);
    for (;;) {
      const left = deadline - Date.now();
      if (left <= 0) throw stillLocked(datasetId, seen, this.maxWaitMs);
      if (pause > 0) await sleep(Math.min(pause, left));
      seen = await this.locks(datasetId);
      if (seen.some((lock) => lock.lockType === 'InReview'))
        throw new ConnectorError(
          409,
          `Dataverse dataset ${datasetId} is in review: only a curator of its collection can change it until it is returned to its author.`,
        );
      if (seen.length === 0) return sawLocks;
      sawLocks = true;
      pause = Math.min(Math.max(pause * 2, FIRST_POLL_MS), MAX_POLL_MS);
    }
  }
}

function stillLocked(datasetId: string, locks: DatasetLock[], waitedMs: number): ConnectorError {
  const kinds = [...new Set(locks.map((lock) => lock.lockType))].join(', ') || 'a lock';
  return new ConnectorError(
    503,
    `Dataverse dataset ${datasetId} stayed locked (${kinds}) for more than ${Math.round(waitedMs / 1000)} s, ` +
      'the longest this service waits (UPSTREAM_MAX_WAIT_MS); Dataverse refuses changes until it has finished. Try again later.',
  );
}
