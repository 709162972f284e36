/**
 * Where a run stands, as the worker carrying it out sees it (docs/jobs.md#a-run-in-the-worker). The first
 * four are left by what happens while the handler works, the next three by the worker's steps once it has
 * stopped (JobRunner.settle); the last six are ends.
 */
export type RunState =
  /** the handler works */
  | 'running'
  /** past the point of no return (JobContext.beginCommit): a cancel comes too late */
  | 'committing'
  /** the worker is stopping: the handler stops at its next checkpoint, what it wrote stays */
  | 'handing-back'
  /** the user is cancelling the run: what it wrote is taken back and its files removed, then it ends */
  | 'cancelling'
  /** the handler returned: the run's end is recorded */
  | 'finishing'
  /** the handler failed: its files are removed (it took back what it wrote), then the failure is recorded */
  | 'failing'
  | 'finished'
  | 'failed'
  | 'cancelled'
  /** back in the queue, for a worker that resumes it from its checkpoints */
  | 'handed-back'
  /** another worker holds the run's lease: the run, its files and what it wrote are that one's */
  | 'superseded'
  /** another process had ended the run already */
  | 'ended-elsewhere';

export type RunEvent =
  /** the run passed its point of no return */
  | 'commit'
  /** the store says the run is to stop: the user is cancelling it, or it is no longer the one in progress */
  | 'stop'
  /** the worker is stopping */
  | 'handBack'
  /** another worker holds the run's lease */
  | 'leaseLost'
  /** the handler returned the run's outcome */
  | 'returned'
  /** the handler threw */
  | 'threw'
  /** the store recorded the end (JobStore.end's answers are these three events) */
  | 'ended'
  /** the store refused the end: the user is cancelling the run, which ends only as cancelled */
  | 'refused'
  /** the store found the run ended already */
  | 'over';

/** Where each event moves a run from each state; an event a state does not name leaves it as it is. */
const MOVES: { readonly [S in RunState]: Readonly<Partial<Record<RunEvent, RunState>>> } = {
  // prettier-ignore
  running: { commit: 'committing', stop: 'cancelling', handBack: 'handing-back', leaseLost: 'superseded', returned: 'finishing', threw: 'failing' },
  // prettier-ignore
  committing: { handBack: 'handing-back', leaseLost: 'superseded', returned: 'finishing', threw: 'failing' },
  'handing-back': { leaseLost: 'superseded', returned: 'finishing', threw: 'handed-back' },
  finishing: { leaseLost: 'superseded', ended: 'finished', refused: 'cancelling', over: 'cancelling' },
  failing: { leaseLost: 'superseded', ended: 'failed', refused: 'cancelling', over: 'ended-elsewhere' },
  cancelling: { leaseLost: 'superseded', ended: 'cancelled', over: 'ended-elsewhere' },
  finished: {},
  failed: {},
  cancelled: {},
  'handed-back': {},
  superseded: {},
  'ended-elsewhere': {},
};

/** The states in which the handler must stop: entering one fires the run's abort signal. */
const STOPPING: ReadonlySet<RunState> = new Set(['handing-back', 'cancelling', 'superseded']);

/** The ends this worker recorded in the store: the user is told of them, and they are counted. */
export const RECORDED_ENDS: ReadonlySet<RunState> = new Set(['finished', 'failed', 'cancelled']);

/** One run's state, moved only by events (MOVES). */
export class RunStateMachine {
  constructor(
    private now: RunState,
    /** called when the run enters a state in which its handler must stop */
    private readonly onStop: () => void = () => undefined,
  ) {}

  get state(): RunState {
    return this.now;
  }

  move(event: RunEvent): RunState {
    const next = MOVES[this.now][event];
    if (next === undefined || next === this.now) return this.now;
    this.now = next;
    if (STOPPING.has(next)) this.onStop();
    return next;
  }
}
