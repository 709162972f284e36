import type { AnySettingsClass } from './settings';

/**
 * The tables of docs/configuration.md, from the declarations: a section for each settings class, in the
 * order the processes list them, saying which processes read it, then a row for each setting (its default,
 * the values it accepts, what it does).
 * `readers` maps a process's name ("the API") to the classes it loads.
 */
export function settingsReference(readers: Record<string, readonly AnySettingsClass[]>): string {
  const classes = [...new Set(Object.values(readers).flat())];
  return classes.map((type) => section(type, readersOf(type, readers))).join('\n');
}

function readersOf(type: AnySettingsClass, readers: Record<string, readonly AnySettingsClass[]>): string[] {
  return Object.entries(readers)
    .filter(([, types]) => types.includes(type))
    .map(([process]) => process);
}

function section(type: AnySettingsClass, readers: string[]): string {
  const rows = Object.values(type.declarations).map(
    ({ env, shownDefault, expected, doc }) =>
      `| \`${env}\` | ${cell(shownDefault)} | ${cell(expected)} | ${cell(doc)} |`,
  );
  const readBy = readers.length > 1 ? `${readers.slice(0, -1).join(', ')} and ${readers.at(-1)}` : readers[0];
  return [
    `## ${type.title}`,
    '',
    `Read by ${readBy}.`,
    '',
    '| variable | default | accepts | meaning |',
    '| --- | --- | --- | --- |',
    ...rows,
    '',
  ].join('\n');
}

/** A table cell: a `|` would end it. */
function cell(text: string): string {
  return text.replace(/\|/g, '\\|');
}
