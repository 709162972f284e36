import { readFileSync } from 'node:fs';
import Ajv, { type ErrorObject } from 'ajv';
import addFormats from 'ajv-formats';
import type { TargetEntry } from './target-entry';
import { targetsFileSchema } from './targets-file.schema';

export class TargetsFileError extends Error {}

/** Problems with one entry's connector and options, as the connector catalogue sees them. */
export type ConnectorCheck = (entry: TargetEntry) => string[];

/**
 * Reads and validates a targets file. Every problem is reported at once, each naming the entry and the
 * field, so that an operator can fix the file in one go.
 */
export function loadTargetsFile(file: string, checkConnector: ConnectorCheck): TargetEntry[] {
  let raw: string;
  try {
    raw = readFileSync(file, 'utf8');
  } catch (error) {
    throw new TargetsFileError(`Cannot read targets file ${file}: ${(error as Error).message}`);
  }
  let data: unknown;
  try {
    data = JSON.parse(raw);
  } catch (error) {
    throw new TargetsFileError(`Targets file ${file} is not valid JSON: ${(error as Error).message}`);
  }

  const ajv = new Ajv({ allErrors: true });
  addFormats(ajv);
  const validate = ajv.compile<TargetEntry[]>(targetsFileSchema);
  const problems: string[] = [];
  if (!validate(data)) {
    problems.push(...(validate.errors ?? []).map((error) => describeSchemaError(error, data)));
  } else {
    problems.push(...crossEntryProblems(data, checkConnector));
  }
  if (problems.length > 0) {
    throw new TargetsFileError(`Invalid targets file ${file}:\n  - ${problems.join('\n  - ')}`);
  }
  return data as TargetEntry[];
}

function describeSchemaError(error: ErrorObject, data: unknown): string {
  const [, index, ...field] = error.instancePath.split('/');
  if (index === undefined) return `the file must hold a non-empty array of target entries (${error.message})`;
  const entry = entryLabel(data, Number(index));
  let message = error.message ?? 'is invalid';
  if (error.keyword === 'additionalProperties') {
    message = `has unknown field '${(error.params as { additionalProperty: string }).additionalProperty}'`;
  } else if (error.keyword === 'enum') {
    message = `must be one of ${(error.params as { allowedValues: unknown[] }).allowedValues.join(', ')}`;
  } else if (error.keyword === 'required') {
    const missing = (error.params as { missingProperty: string }).missingProperty;
    return `${entry}: field '${[...field, missing].join('.')}' is required`;
  }
  return field.length > 0 ? `${entry}: field '${field.join('.')}' ${message}` : `${entry}: ${message}`;
}

function entryLabel(data: unknown, index: number): string {
  const name = Array.isArray(data) ? (data[index] as { name?: unknown } | undefined)?.name : undefined;
  return typeof name === 'string' ? `entry ${index} ('${name}')` : `entry ${index}`;
}

function crossEntryProblems(entries: TargetEntry[], checkConnector: ConnectorCheck): string[] {
  const problems: string[] = [];
  const known = new Set<string>();
  entries.forEach((entry, index) => {
    const label = `entry ${index} ('${entry.name}')`;
    if (known.has(entry.name)) problems.push(`${label}: field 'name' repeats an earlier entry's name`);
    known.add(entry.name);
    problems.push(...checkConnector(entry).map((problem) => `${label}: ${problem}`));
  });
  entries.forEach((entry, index) => {
    for (const direction of ['transfer_in', 'transfer_out'] as const) {
      for (const partner of entry.supported_transfer_partners[direction]) {
        if (!known.has(partner)) {
          problems.push(
            `entry ${index} ('${entry.name}'): field 'supported_transfer_partners.${direction}' names ` +
              `'${partner}', which is not a target in this file`,
          );
        }
      }
    }
  });
  return problems;
}
