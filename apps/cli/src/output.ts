import { CliError } from './errors';

/**
 * Where a command's words go: its result on stdout (JSON with `--json`, else lines for a person), and
 * notes, warnings and errors on stderr, so that stdout stays the result alone.
 */
export class Output {
  constructor(
    readonly json: boolean,
    private readonly stdout: NodeJS.WritableStream = process.stdout,
    private readonly stderr: NodeJS.WritableStream = process.stderr,
  ) {}

  result(value: unknown, human: () => string[]): void {
    if (this.json) this.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
    else for (const line of human()) this.stdout.write(`${line}\n`);
  }

  note(line: string): void {
    this.stderr.write(`${line}\n`);
  }

  /** The failure on stderr; with `--json` also as `{"error": ..., ...details}` on stdout. */
  error(error: CliError): void {
    this.stderr.write(`presqt: ${error.message}\n`);
    if (this.json)
      this.stdout.write(
        `${JSON.stringify({ error: error.message, exit_status: error.exitCode, ...error.details }, null, 2)}\n`,
      );
  }
}

/** Rows as left-aligned columns two spaces apart; the last column is not padded. */
export function table(rows: string[][]): string[] {
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => row[column]?.length ?? 0))) ?? [];
  return rows.map((row) =>
    row
      .map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column] ?? 0)))
      .join('  ')
      .trimEnd(),
  );
}

const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];

export function humanBytes(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${value} B` : `${value.toFixed(1)} ${UNITS[unit]}`;
}
