import { ServiceError } from '@app/common';

export type ResourceFormat = 'json' | 'zip';

/**
 * Splits the last path segment of a resource URL into id and format. The last dot separates them, which is
 * why connectors never put a dot in an id; a segment without a dot is a plain id.
 */
export function parseResourceSegment(
  segment: string,
  allowed: readonly ResourceFormat[],
): {
  id: string;
  format: ResourceFormat | undefined;
} {
  const dot = segment.lastIndexOf('.');
  if (dot < 0) return { id: segment, format: undefined };
  const format = segment.slice(dot + 1);
  if (!(allowed as readonly string[]).includes(format)) {
    throw ServiceError.badRequest(`PresQT Error: ${format} is not a valid format for this endpoint.`);
  }
  return { id: segment.slice(0, dot), format: format as ResourceFormat };
}
