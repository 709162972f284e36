import { RunStateMachine, type RunEvent } from '../../apps/worker/src/jobs/run-state';

/** A run in `from`, moved by `events` in turn: where it ends up, and how often its handler was told to stop. */
function after(from: ConstructorParameters<typeof RunStateMachine>[0], events: RunEvent[]) {
  let stops = 0;
  const run = new RunStateMachine(from, () => (stops += 1));
  for (const event of events) run.move(event);
  return { state: run.state, stops };
}

describe("a run's states in the worker", () => {
  it('stops the handler once for a cancel, and ends cancelled once the end is recorded', () => {
    expect(after('running', ['stop', 'stop', 'threw', 'ended'])).toEqual({ state: 'cancelled', stops: 1 });
  });

  it('lets a committing run finish: a cancel comes too late', () => {
    expect(after('running', ['commit', 'stop', 'returned', 'ended'])).toEqual({
      state: 'finished',
      stops: 0,
    });
  });

  it('hands a stopping run back, unless it finished first', () => {
    expect(after('running', ['handBack', 'threw'])).toEqual({ state: 'handed-back', stops: 1 });
    expect(after('running', ['handBack', 'returned', 'ended'])).toEqual({ state: 'finished', stops: 1 });
    // a cancel after the hand-back changes nothing: the worker that takes the run next ends it
    expect(after('running', ['handBack', 'stop', 'threw'])).toEqual({ state: 'handed-back', stops: 1 });
  });

  it('takes back a run that finished as the user cancelled it, and ends it cancelled', () => {
    expect(after('running', ['returned', 'refused'])).toEqual({ state: 'cancelling', stops: 1 });
    expect(after('running', ['returned', 'refused', 'ended']).state).toBe('cancelled');
  });

  it('ends a failed run cancelled when the user is cancelling it', () => {
    expect(after('running', ['threw', 'refused', 'ended'])).toEqual({ state: 'cancelled', stops: 1 });
    expect(after('failing', ['ended']).state).toBe('failed');
  });

  it('leaves a run whose lease another worker holds to that worker, whatever comes after', () => {
    expect(after('running', ['leaseLost', 'returned', 'ended'])).toEqual({
      state: 'superseded',
      stops: 1,
    });
    expect(after('cancelling', ['over'])).toEqual({ state: 'ended-elsewhere', stops: 0 });
  });
});
