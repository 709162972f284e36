import { createHash } from 'node:crypto';
import {
  isContributor,
  latest,
  materializedPath,
  OSF_STORAGE,
  waterButlerPath,
  type FakeEntry,
  type FakeFolder,
  type FakeNode,
  type FakeUser,
} from './model';

/**
 * The JSON of the fake's answers, as OSF API v2 (version 2.20) and WaterButler v1 serialize their entities.
 * OSF: https://developer.osf.io/#tag/Entities-and-Entity-Collections (relationships as
 * `{links: {related: {href, meta}}, data}`), nodes https://developer.osf.io/#tag/Nodes, files
 * https://developer.osf.io/#tag/Files, users https://developer.osf.io/#tag/Users. WaterButler:
 * https://waterbutler.readthedocs.io/en/latest/api.html (its metadata objects: waterbutler/core/metadata.py).
 */

export interface Origins {
  /** the API's base URL, e.g. http://127.0.0.1:4000/v2 */
  api: string;
  /** the file service of the default storage region */
  files: string;
  /** the file services of the other storage regions, by region id */
  regionFiles: Record<string, string>;
  /** the OSF website */
  web: string;
}

/** From version 2.2 on, OSF writes dates in UTC with microseconds: `2024-01-01T00:00:01.000000Z`. */
export function stamp(date: Date): string {
  return date.toISOString().replace('Z', '000Z');
}

function relationship(
  href: string,
  meta: object = {},
): { links: { related: { href: string; meta: object } } } {
  return { links: { related: { href, meta } } };
}

/** A to-one relationship names its entity in `data`; an empty one is `{data: null}` (from version 2.9 on). */
function toOne(href: string | null, type: string, id: string | undefined) {
  return href === null || id === undefined ? { data: null } : { ...relationship(href), data: { id, type } };
}

export function userJson(user: FakeUser, origins: Origins) {
  const [given, ...family] = user.fullName.split(' ');
  return {
    id: user.id,
    type: 'users',
    attributes: {
      full_name: user.fullName,
      given_name: given,
      middle_names: '',
      family_name: family.join(' '),
      suffix: '',
      date_registered: stamp(user.registered),
      active: true,
      timezone: 'Etc/UTC',
      locale: 'en_US',
    },
    relationships: {
      nodes: relationship(`${origins.api}/users/${user.id}/nodes/`),
      institutions: relationship(`${origins.api}/users/${user.id}/institutions/`),
    },
    links: {
      html: `${origins.web}/${user.id}/`,
      profile_image: `https://secure.gravatar.com/avatar/${user.id}?d=identicon`,
      self: `${origins.api}/users/${user.id}/`,
    },
  };
}

export function nodeJson(node: FakeNode, viewer: FakeUser | null, origins: Origins) {
  const contributor = isContributor(node, viewer);
  let root = node;
  while (root.parent) root = root.parent;
  const self = `${origins.api}/nodes/${node.id}/`;
  return {
    id: node.id,
    type: 'nodes',
    attributes: {
      title: node.title,
      description: node.description,
      category: node.category,
      custom_citation: null,
      date_created: stamp(node.created),
      date_modified: stamp(node.modified),
      registration: false,
      preprint: false,
      fork: false,
      collection: false,
      tags: [...node.tags],
      access_requests_enabled: true,
      node_license: null,
      current_user_can_comment: contributor,
      current_user_permissions: contributor ? ['admin', 'write', 'read'] : ['read'],
      current_user_is_contributor: contributor,
      current_user_is_contributor_or_group_member: contributor,
      wiki_enabled: true,
      public: node.public,
      subjects: [],
    },
    relationships: {
      children: relationship(`${self}children/`),
      contributors: relationship(`${self}contributors/`),
      files: relationship(`${self}files/`),
      parent: toOne(node.parent && `${origins.api}/nodes/${node.parent.id}/`, 'nodes', node.parent?.id),
      // api/nodes/serializers.py RegionRelationshipField; developer.osf.io's examples show `region` as
      // {data: {id: 'us', type: 'regions'}} with a link to /v2/regions/us/
      region: toOne(`${origins.api}/regions/${node.region}/`, 'regions', node.region),
      root: toOne(`${origins.api}/nodes/${root.id}/`, 'nodes', root.id),
    },
    links: { html: `${origins.web}/${node.id}/`, self, iri: `${origins.web}/${node.id}` },
  };
}

/**
 * WaterButler's URL of an entry: `/v1/resources/<node>/providers/<provider><path>` at the file service of the
 * node's storage region, for every provider (WaterbutlerLink in api/base/serializers.py and
 * BaseFileNode.generate_waterbutler_url in osf/models/files.py take `target.osfstorage_region.waterbutler_url`).
 */
export function waterButlerUrl(entry: FakeEntry, origins: Origins): string {
  const origin = origins.regionFiles[entry.node.region] ?? origins.files;
  const path = waterButlerPath(entry)
    .split('/')
    .map((segment) => encodeURIComponent(segment))
    .join('/');
  return `${origin}/v1/resources/${entry.node.id}/providers/${entry.provider}${path}`;
}

/** A node's storage provider (its root folder), as `nodes/{id}/files/` lists it. */
export function providerJson(root: FakeFolder, origins: Origins) {
  const node = root.node.id;
  return {
    id: `${node}:${root.provider}`,
    type: 'files',
    attributes: { kind: 'folder', name: root.provider, path: '/', node, provider: root.provider },
    relationships: { files: relationship(`${origins.api}/nodes/${node}/files/${root.provider}/`) },
    links: {
      upload: waterButlerUrl(root, origins),
      new_folder: `${waterButlerUrl(root, origins)}?kind=folder`,
      storage_addons: `${origins.api}/addons/?filter%5Bcategories%5D=storage`,
    },
  };
}

/** A file or folder as the API serializes it (api/files/serializers.py: BaseFileSerializer). */
export function fileJson(entry: FakeEntry, origins: Origins) {
  const node = entry.node.id;
  const file = entry.kind === 'file' ? entry : null;
  const inOsfStorage = entry.provider === OSF_STORAGE;
  const wb = waterButlerUrl(entry, origins);
  const self = `${origins.api}/files/${entry.id}/`;
  return {
    id: entry.id,
    type: 'files',
    attributes: {
      guid: null,
      checkout: null,
      name: entry.name,
      kind: entry.kind,
      path: waterButlerPath(entry),
      size: file ? latest(file).content.length : null,
      provider: entry.provider,
      materialized_path: materializedPath(entry),
      last_touched: null,
      date_modified: file ? stamp(latest(file).created) : null,
      date_created: file ? stamp(file.versions[0].created) : null,
      extra: {
        // other providers' files here carry no md5 or sha256 (Dropbox keeps a hash of its own)
        hashes: {
          md5: file && inOsfStorage ? latest(file).md5 : null,
          sha256: file && inOsfStorage ? latest(file).sha256 : null,
        },
        ...(file && inOsfStorage ? { downloads: 0 } : {}),
      },
      tags: [...entry.tags],
      current_user_can_comment: true,
      current_version: file ? file.versions.length : 1,
      delete_allowed: true,
    },
    relationships: {
      parent_folder: toOne(
        entry.parent && `${origins.api}/files/${entry.parent.id}/`,
        'files',
        entry.parent?.id,
      ),
      ...(file
        ? { versions: relationship(`${self}versions/`) }
        : {
            files: relationship(
              `${origins.api}/nodes/${node}/files/${entry.provider}${encodeURI(waterButlerPath(entry))}`,
            ),
          }),
      target: {
        links: { related: { href: `${origins.api}/nodes/${node}/`, meta: { type: 'node' } } },
        data: { type: 'node', id: node },
      },
    },
    links: {
      info: self,
      move: wb,
      upload: wb,
      delete: wb,
      ...(file
        ? {
            download: `${origins.web}/download/${entry.id}/`,
            html: `${origins.web}/${node}/files/${entry.provider}${encodeURI(waterButlerPath(entry))}`,
          }
        : { new_folder: `${wb}?kind=folder` }),
      self,
    },
  };
}

/** WaterButler's metadata of an entry (`json_api_serialized`), as its uploads and folder creations answer. */
export function waterButlerJson(entry: FakeEntry, origins: Origins) {
  const url = waterButlerUrl(entry, origins);
  const path = waterButlerPath(entry);
  const common = {
    kind: entry.kind,
    name: entry.name,
    path,
    provider: entry.provider,
    materialized: materializedPath(entry),
    etag: createHash('sha256').update(`${entry.provider}::${path}`).digest('hex'),
    resource: entry.node.id,
  };
  if (entry.kind === 'folder') {
    return {
      id: `${entry.provider}${path}`,
      type: 'files',
      attributes: { ...common, extra: {}, size: null },
      links: { move: url, upload: `${url}?kind=file`, delete: url, new_folder: `${url}?kind=folder` },
    };
  }
  const version = latest(entry);
  const inOsfStorage = entry.provider === OSF_STORAGE;
  return {
    id: `${entry.provider}${path}`,
    type: 'files',
    attributes: {
      ...common,
      extra: inOsfStorage
        ? {
            guid: null,
            version: entry.versions.length,
            downloads: 0,
            checkout: null,
            hashes: { md5: version.md5, sha256: version.sha256 },
          }
        : {},
      contentType: null,
      modified: version.created.toUTCString(),
      modified_utc: version.created.toISOString().replace(/\.\d+Z$/, '+00:00'),
      created_utc: entry.versions[0].created.toISOString().replace(/\.\d+Z$/, '+00:00'),
      size: version.content.length,
      sizeInt: version.content.length,
    },
    links: { move: url, upload: `${url}?kind=file`, delete: url, download: url },
  };
}
