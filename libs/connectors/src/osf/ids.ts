/**
 * Resource ids at OSF. Projects and components carry their node's GUID, folders and files their OSF file id,
 * and a storage OSF's own id of a node's storage provider, `<node>:<provider>` (e.g. `ezcuj:osfstorage`).
 * None of them can hold a dot, a slash or a percent sign; anything else is no OSF id and names nothing.
 */

/** OSF node GUIDs and file ids are letters and digits. */
const OSF_ID = /^[A-Za-z0-9]{1,64}$/;
/** Provider names: letters, digits, `_` and `-` (OSF's routes take `[a-zA-Z0-9-]`, WaterButler's `\w`). */
const PROVIDER = /^[A-Za-z0-9_-]{1,64}$/;

export type ParsedId = { kind: 'storage'; node: string; provider: string } | { kind: 'entity'; id: string };

/** What an id names (a storage, or a node or file), or null when no OSF resource can have it. */
export function parseId(id: string): ParsedId | null {
  const parts = id.split(':');
  if (parts.length === 1) return OSF_ID.test(id) ? { kind: 'entity', id } : null;
  const [node, provider] = parts;
  if (parts.length !== 2 || !OSF_ID.test(node) || !PROVIDER.test(provider)) return null;
  return { kind: 'storage', node, provider };
}
