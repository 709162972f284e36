import { setting, Settings } from '@app/config';

/** How long jobs are kept, how soon a dead worker's job is taken over, how often leftovers are swept. */
export class JobSettings extends Settings('Jobs', {
  ttlHours: setting.int('JOB_TTL_HOURS', {
    min: 1,
    default: 24,
    doc: "how long a job's record and files (the zip) are kept after it ends",
  }),
  lockMs: setting.int('JOB_LOCK_MS', {
    min: 1000,
    default: 30_000,
    doc: "a killed worker's job is taken over by another within this ([behaviour.md](behaviour.md#a-worker-that-dies))",
  }),
  sweepMs: setting.int('JOB_SWEEP_MS', {
    min: 100,
    default: 60_000,
    doc: 'how often a worker removes expired job files and fails runs that no queue holds',
  }),
}) {
  /** how long a job's record and files are kept after it ends */
  get ttlSeconds(): number {
    return this.ttlHours * 3600;
  }
}
