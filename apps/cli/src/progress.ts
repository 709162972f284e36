import { SingleBar } from 'cli-progress';

/** A live progress bar, or nothing at all where no person watches. */
export interface ProgressView {
  update(value: number, total: number, detail: string): void;
  stop(): void;
}

const SILENT: ProgressView = { update: () => undefined, stop: () => undefined };

/** A bar on stderr when `enabled` (stderr is a terminal and --no-progress was not given). */
export function progressBar(enabled: boolean, label: string): ProgressView {
  if (!enabled) return SILENT;
  const bar = new SingleBar({
    stream: process.stderr,
    format: `${label} |{bar}| {percentage}% {detail}`,
    barCompleteChar: '\u2588',
    barIncompleteChar: '\u2591',
    hideCursor: true,
    linewrap: false,
  });
  let started = false;
  return {
    update(value, total, detail) {
      if (!started) bar.start(total, value, { detail });
      else {
        bar.setTotal(total);
        bar.update(value, { detail });
      }
      started = true;
    },
    stop() {
      if (started) bar.stop();
      started = false;
    },
  };
}
