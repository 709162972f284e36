/** The final message of a download, upload or transfer, naming fixity problems (decision 16). */
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
