import { XMLParser } from 'fast-xml-parser';
import { ConnectorError } from '../connector-error';

/**
 * What a PROPFIND answers (RFC 4918 §9.1, a 207 Multi-Status, https://www.rfc-editor.org/rfc/rfc4918#section-9.1):
 * one `response` per resource, its `href` and the properties found (`propstat` with status 200); those the
 * server does not have come in a `propstat` of their own with 404 and are left out here.
 */

/** One resource as a PROPFIND describes it. */
export interface DavEntry {
  /** the decoded path segments below the user's root; empty for the root */
  path: string[];
  collection: boolean;
  size: number;
  /** ISO 8601 UTC, from `getlastmodified`; the epoch when the server gives none */
  modified: string;
  /** ISO 8601 UTC, from `creationdate` when the server keeps it, else `modified` */
  created: string;
  etag?: string;
  contentType?: string;
  /** the checksums Nextcloud and ownCloud keep (`oc:checksums`), by algorithm, lower-case hex */
  checksums: Partial<Record<ChecksumAlgorithm, string>>;
  /** the href of the requesting user's principal (RFC 5397), where it was asked for and the server names one */
  principal?: string;
}

export type ChecksumAlgorithm = 'md5' | 'sha1';

/**
 * The properties the connector asks for: RFC 4918's live properties (§15) and ownCloud's `oc:checksums`
 * (`http://owncloud.org/ns`), which Nextcloud and ownCloud answer with `SHA1:<hex> MD5:<hex> ADLER32:<hex>`
 * (owncloud/core tests/integration/features/checksums.feature; Nextcloud apps/dav FilesPlugin).
 */
export const PROPFIND_BODY =
  '<?xml version="1.0" encoding="utf-8"?>' +
  '<d:propfind xmlns:d="DAV:" xmlns:oc="http://owncloud.org/ns"><d:prop>' +
  '<d:resourcetype/><d:getcontentlength/><d:getlastmodified/><d:creationdate/><d:getetag/>' +
  '<d:getcontenttype/><oc:checksums/>' +
  '</d:prop></d:propfind>';

/**
 * The same with RFC 5397's `current-user-principal` (https://www.rfc-editor.org/rfc/rfc5397): the principal of
 * the user the credentials log in, which sabre/dav's DAVACL plugin answers on every resource and Nextcloud names
 * `.../principals/users/<user id>/` (apps/dav lib/Connector/Sabre/Auth.php puts the id, not the login name).
 */
export const PROPFIND_WITH_PRINCIPAL_BODY = PROPFIND_BODY.replace(
  '</d:prop>',
  '<d:current-user-principal/></d:prop>',
);
/** `current-user-principal` alone, for a resource outside the user's root (the DAV root). */
export const PRINCIPAL_BODY =
  '<?xml version="1.0" encoding="utf-8"?>' +
  '<d:propfind xmlns:d="DAV:"><d:prop><d:current-user-principal/></d:prop></d:propfind>';

const parser = new XMLParser({
  // DAV: and oc: names do not clash among the properties read, so prefixes (which servers choose) go
  removeNSPrefix: true,
  ignoreAttributes: true,
  parseTagValue: false,
  isArray: (name) => name === 'response' || name === 'propstat',
});

type Node = Record<string, unknown>;

/** The text of a property, however the server nests it (ownCloud: `<oc:checksum>` inside `<oc:checksums>`). */
function textOf(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string' || typeof value === 'number') return String(value);
  if (Array.isArray(value)) return value.map(textOf).join(' ');
  if (typeof value === 'object')
    return Object.values(value as Node)
      .map(textOf)
      .join(' ');
  return '';
}

/** The properties of a response found with 200 (merged over its propstats). */
function foundProps(response: Node): Node {
  const props: Node = {};
  for (const propstat of (response.propstat as Node[] | undefined) ?? []) {
    if (!/\s2\d\d\b/.test(textOf(propstat.status))) continue;
    Object.assign(props, (propstat.prop as Node | undefined) ?? {});
  }
  return props;
}

/** `SHA1:<hex> MD5:<hex> ADLER32:<hex>` as checksums by algorithm (ADLER32 is not one the service computes). */
export function parseChecksums(text: string): DavEntry['checksums'] {
  const checksums: DavEntry['checksums'] = {};
  for (const [, algorithm, value] of text.matchAll(/\b(SHA1|MD5):([0-9a-fA-F]+)/g)) {
    const name = algorithm === 'SHA1' ? 'sha1' : 'md5';
    if (value.length === (name === 'sha1' ? 40 : 32)) checksums[name] = value.toLowerCase();
  }
  return checksums;
}

function isoOr(value: string, fallback: string): string {
  const date = new Date(value);
  return value === '' || Number.isNaN(date.getTime()) ? fallback : date.toISOString();
}

/** The path segments of an href below the root's path; null for one outside it. */
function segmentsBelow(href: string, rootPath: string): string[] | null {
  const path = new URL(href, 'http://root.invalid').pathname;
  const root = rootPath.endsWith('/') ? rootPath : `${rootPath}/`;
  const inside = `${path.replace(/\/$/, '')}/`;
  if (!inside.startsWith(root)) return null;
  try {
    return inside
      .slice(root.length)
      .split('/')
      .filter((segment) => segment !== '')
      .map((segment) => decodeURIComponent(segment));
  } catch {
    return null;
  }
}

/** The entries of a 207 Multi-Status body, each with its path below `rootPath`. */
export function parseMultistatus(xml: string, rootPath: string, upstream: string): DavEntry[] {
  let document: Node;
  try {
    document = parser.parse(xml) as Node;
  } catch {
    throw new ConnectorError(502, `${upstream} answered a PROPFIND with something that is not XML.`);
  }
  const multistatus = document.multistatus as Node | undefined;
  if (!multistatus) throw new ConnectorError(502, `${upstream} answered a PROPFIND without a multistatus.`);
  const entries: DavEntry[] = [];
  for (const response of (multistatus.response as Node[] | undefined) ?? []) {
    const path = segmentsBelow(textOf(response.href).trim(), rootPath);
    if (path === null) continue;
    const props = foundProps(response);
    const modified = isoOr(textOf(props.getlastmodified).trim(), new Date(0).toISOString());
    const etag = textOf(props.getetag).trim();
    const contentType = textOf(props.getcontenttype).trim();
    // an href, or `unauthenticated` (an empty element) where the request was not authenticated
    const principal = textOf(props['current-user-principal']).trim();
    entries.push({
      path,
      collection:
        typeof props.resourcetype === 'object' && props.resourcetype !== null
          ? 'collection' in (props.resourcetype as Node)
          : false,
      size: Number(textOf(props.getcontentlength).trim() || 0),
      modified,
      created: isoOr(textOf(props.creationdate).trim(), modified),
      ...(etag ? { etag } : {}),
      ...(contentType ? { contentType } : {}),
      ...(principal ? { principal } : {}),
      checksums: parseChecksums(textOf(props.checksums)),
    });
  }
  return entries;
}

/** An entry's name (its last path segment). */
export function nameOf(entry: DavEntry): string {
  return entry.path[entry.path.length - 1] ?? '';
}
