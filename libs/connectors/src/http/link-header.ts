import type { IncomingHttpHeaders } from 'node:http';
import LinkHeader from 'http-link-header';

/**
 * The URLs of an RFC 8288 `Link` header by relation (`next`, `last`, ...), resolved against the URL the
 * answer came from: how GitHub announces its pages.
 */
export function linkRelations(headers: IncomingHttpHeaders, base: URL): Partial<Record<string, URL>> {
  const value = headers.link;
  const text = Array.isArray(value) ? value.join(', ') : value;
  if (!text) return {};
  const relations: Partial<Record<string, URL>> = {};
  for (const link of LinkHeader.parse(text).refs) {
    for (const rel of link.rel.toLowerCase().split(/\s+/)) relations[rel] ??= new URL(link.uri, base);
  }
  return relations;
}
