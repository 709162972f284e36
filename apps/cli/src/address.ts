import { CliError, EXIT } from './errors';

/** `lab` or `lab:<id>`: a target, and a resource at it. Ids may hold ':' (git hosts), target names never. */
export interface Address {
  target: string;
  id?: string;
}

export function parseAddress(text: string, needsId: boolean): Address {
  const colon = text.indexOf(':');
  const target = colon < 0 ? text : text.slice(0, colon);
  const id = colon < 0 ? undefined : text.slice(colon + 1);
  if (!target || id === '') throw new CliError(`'${text}' is not <target> or <target>:<id>.`, EXIT.usage);
  if (needsId && id === undefined)
    throw new CliError(
      `'${text}' names no resource: write <target>:<id> (presqt ls ${target} lists ids).`,
      EXIT.usage,
    );
  return { target, id };
}
