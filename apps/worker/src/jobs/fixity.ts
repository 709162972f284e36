import type { FixityResult } from '@app/jobs';
import type { FtsFileEntry } from '@app/metadata';

/** What comparing a file's checksums found (docs/behaviour.md#fixity). */
export interface FixityCheck {
  /** a checksum differs */
  failed: boolean;
  /** there was nothing to compare */
  unverified: boolean;
  /** each checksum that differs, as the metadata file records it */
  failures: FtsFileEntry['failedFixityInfo'];
}

/**
 * Compares the checksums something vouches for (a target's, a bag manifest's) with those computed over the
 * bytes that passed; an algorithm only one side has is not compared. `reason` says what a difference means.
 */
export function compareChecksums(
  vouched: Readonly<Record<string, string>>,
  computed: Readonly<Record<string, string>>,
  reason: string,
): FixityCheck {
  const compared = Object.keys(vouched).filter((algorithm) => computed[algorithm] !== undefined);
  const failures = compared
    .filter((algorithm) => vouched[algorithm].toLowerCase() !== computed[algorithm])
    .map((algorithm) => ({
      NewGeneratedHash: computed[algorithm],
      algorithmUsed: algorithm,
      reasonFixityFailed: reason,
    }));
  return { failed: failures.length > 0, unverified: compared.length === 0, failures };
}

/**
 * The source's checksums of a file whose target keeps none of its own (RemoteFile.checksumsOfBytes), taken
 * from the bytes read: the first of `wanted` that was computed, as the target's sourceHashes would answer.
 */
export function checksumsOfBytes(
  wanted: readonly string[],
  computed: Readonly<Record<string, string>>,
): Record<string, string> {
  const algorithm = wanted.find((name) => computed[name] !== undefined);
  return algorithm === undefined ? {} : { [algorithm]: computed[algorithm] };
}

/** Both checks of a written file: failed when either failed, unverified when neither compared anything. */
export function bothChecks(first: FixityCheck, second: FixityCheck): FixityCheck {
  return {
    failed: first.failed || second.failed,
    unverified: first.unverified && second.unverified,
    failures: [...first.failures, ...second.failures],
  };
}

/**
 * The fixity a job reports, file by file, as every job kind keeps it (docs/behaviour.md#fixity): the paths
 * that failed and those that could not be checked, its result fields and its final message.
 */
export class FixityTally {
  readonly failedFixity: string[] = [];
  readonly unverified: string[] = [];

  add(path: string, check: FixityCheck): void {
    if (check.failed) this.failedFixity.push(path);
    if (check.unverified) this.unverified.push(path);
  }

  result(): FixityResult {
    return { failed_fixity: this.failedFixity, fixity_unverified: this.unverified };
  }

  /** The final message of a finished job, naming fixity problems. */
  message(title: string): string {
    const parts = [
      this.failedFixity.length > 0 ? `${title} successful but with fixity errors.` : `${title} successful.`,
    ];
    if (this.unverified.length > 0) {
      parts.push(
        `Fixity of ${this.unverified.length} file(s) could not be verified because no checksum was provided.`,
      );
    }
    return parts.join(' ');
  }
}
