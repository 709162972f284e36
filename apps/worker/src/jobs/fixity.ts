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

/** Both checks of a written file: failed when either failed, unverified when neither compared anything. */
export function bothChecks(first: FixityCheck, second: FixityCheck): FixityCheck {
  return {
    failed: first.failed || second.failed,
    unverified: first.unverified && second.unverified,
    failures: [...first.failures, ...second.failures],
  };
}

/** The final message of a download, upload or transfer, naming fixity problems (docs/behaviour.md#fixity). */
export function fixityMessage(
  action: 'Download' | 'Upload' | 'Transfer',
  report: { failedFixity: readonly string[]; unverified: readonly string[] },
): string {
  const parts = [
    report.failedFixity.length > 0 ? `${action} successful but with fixity errors.` : `${action} successful.`,
  ];
  if (report.unverified.length > 0) {
    parts.push(
      `Fixity of ${report.unverified.length} file(s) could not be verified because no checksum was provided.`,
    );
  }
  return parts.join(' ');
}
