import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { removeRunsExcept } from '@app/job-files';

describe('removeRunsExcept', () => {
  let ticketDir: string;
  beforeEach(() => {
    ticketDir = mkdtempSync(join(tmpdir(), 'presqt-run-dirs-'));
    for (const run of ['replaced', 'current']) mkdirSync(join(ticketDir, run));
  });
  afterEach(() => rmSync(ticketDir, { recursive: true, force: true }));

  it('keeps the run the record names and removes the others', async () => {
    await removeRunsExcept(ticketDir, 'current');
    expect(existsSync(join(ticketDir, 'current'))).toBe(true);
    expect(existsSync(join(ticketDir, 'replaced'))).toBe(false);
  });

  it('keeps a run started just after it read the record: the runs are listed before the record is read', async () => {
    // the record still names "current" when read; right after, a new run replaces it and puts its files in
    // place. Listed after that read, the new run's directory would be removed under it.
    const readRecord = async () => {
      const named = 'current';
      mkdirSync(join(ticketDir, 'started meanwhile'));
      return Promise.resolve(named);
    };
    await removeRunsExcept(ticketDir, readRecord);
    expect(existsSync(join(ticketDir, 'started meanwhile'))).toBe(true);
    expect(existsSync(join(ticketDir, 'current'))).toBe(true);
    expect(existsSync(join(ticketDir, 'replaced'))).toBe(false);
  });
});
