import type { HashAlgorithm } from '../connector';
import { ConnectorError } from '../connector-error';

/**
 * The JSON:API objects of OSF API v2 that the connector reads (https://developer.osf.io/#tag/Entities-and-Entity-Collections):
 * `attributes`, `relationships.<name>.links.related.href` (and `data` naming a single related entity) and
 * `links`.
 */

export interface Relationship {
  links?: { related?: { href?: string | null } };
  data?: { id: string; type: string } | null;
}

export interface Entity<Attributes> {
  id: string;
  type: string;
  attributes: Attributes;
  relationships?: Record<string, Relationship | undefined>;
  links?: Record<string, string | null | undefined>;
}

export interface UserAttributes {
  full_name: string;
}

export interface NodeAttributes {
  title: string;
  category: string;
  description?: string | null;
  date_created: string;
  date_modified: string;
  tags: string[];
  public: boolean;
  [attribute: string]: unknown;
}

export interface Hashes {
  md5?: string | null;
  sha256?: string | null;
}

/** Files, folders and storage providers (the root folder of each storage) are all of type `files`. */
export interface FileAttributes {
  name: string;
  kind: 'file' | 'folder';
  provider: string;
  path: string;
  materialized_path?: string;
  size?: number | null;
  date_created?: string | null;
  date_modified?: string | null;
  tags?: string[];
  extra?: { hashes?: Hashes; [key: string]: unknown };
  [attribute: string]: unknown;
}

export type OsfUser = Entity<UserAttributes>;
export type OsfNode = Entity<NodeAttributes>;
export type OsfFile = Entity<FileAttributes>;

/** The token's user as a session keeps them: who they are, and where their nodes are listed. */
export interface OsfAccount {
  id: string;
  fullName: string;
  /** the user's nodes (the `nodes` relationship of `users/me/`) */
  nodesUrl: string;
}

export function accountOf(user: OsfUser): OsfAccount {
  return { id: user.id, fullName: user.attributes.full_name, nodesUrl: related(user, 'nodes') };
}

/** A page of an entity collection, as versions 2.1 and later answer it. */
export interface CollectionDocument<T> {
  data: T[];
  meta?: { total?: number; per_page?: number };
  links?: { next?: string | null };
}

/** The provider every node has: OSF's own storage. */
export const OSF_STORAGE = 'osfstorage';

/** The URL of an entity's relationship, as OSF gives it. */
export function related(entity: Entity<unknown>, name: string): string {
  const href = entity.relationships?.[name]?.links?.related?.href;
  if (!href)
    throw new ConnectorError(502, `OSF gave no '${name}' relationship for ${entity.type} ${entity.id}.`);
  return href;
}

/** The id of the single entity a relationship names, if it names one. */
export function relatedId(entity: Entity<unknown>, name: string): string | null {
  return entity.relationships?.[name]?.data?.id ?? null;
}

/** One of an entity's `links`, as OSF gives it. */
export function link(entity: Entity<unknown>, name: string): string {
  const href = entity.links?.[name];
  if (!href) throw new ConnectorError(502, `OSF gave no '${name}' link for ${entity.type} ${entity.id}.`);
  return href;
}

/**
 * Refuses (403) to write into a node whose user may only read it, such as a public project of someone else:
 * OSF names the token user's permissions on each node (`current_user_permissions`, `read`, `write` and
 * `admin`), so a write is refused before any of it reaches OSF.
 */
export function requireWritable(node: OsfNode): void {
  const reason = readOnlyReason(node);
  if (reason) throw new ConnectorError(403, reason);
}

/** Why the user may not write into the node, or undefined when they may. */
export function readOnlyReason(node: OsfNode): string | undefined {
  const permissions = node.attributes.current_user_permissions;
  if (Array.isArray(permissions) && !permissions.includes('write'))
    return `This user may read the OSF project ${node.id} but not change it: only its contributors with write permission can.`;
  return undefined;
}

export function isFolder(file: OsfFile): boolean {
  return file.attributes.kind === 'folder';
}

/**
 * The checksums OSF (or WaterButler) keeps of a file, those it has: `extra.hashes`, where osfstorage files
 * have md5 and sha256 and other providers' files none.
 */
export function knownHashes(file: {
  attributes: { extra?: { hashes?: Hashes } };
}): Partial<Record<HashAlgorithm, string>> {
  const hashes = file.attributes.extra?.hashes ?? {};
  return Object.fromEntries(
    (['md5', 'sha256'] as const).flatMap((algorithm) =>
      hashes[algorithm] ? [[algorithm, hashes[algorithm]]] : [],
    ),
  );
}

/**
 * A file's WaterButler URL, where GET downloads it and PUT stores a new version: OSF gives it as the file's
 * `upload` link. Its `download` link leads to the OSF website instead (osf.io/download/<id>/), an origin that
 * is not trusted with the token and that sends requests without one to the login page.
 */
export function fileUrl(file: OsfFile): string {
  return link(file, 'upload');
}
