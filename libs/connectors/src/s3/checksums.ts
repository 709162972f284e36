import type { StoredObject } from './api';

/**
 * The object's SHA-256 (hex) when its `ChecksumSHA256` is one of the whole object: a single-part upload's
 * (ChecksumType FULL_OBJECT). A multipart upload's is a checksum of its parts' checksums (COMPOSITE, shown
 * as `<base64>-<parts>`), which no checksum of the bytes equals
 * (https://docs.aws.amazon.com/AmazonS3/latest/userguide/checking-object-integrity.html); null then, and
 * where the server keeps none.
 */
export function fullObjectSha256(object: StoredObject): string | null {
  const value = object.ChecksumSHA256;
  if (!value || object.ChecksumType === 'COMPOSITE' || value.includes('-')) return null;
  const digest = Buffer.from(value, 'base64');
  return digest.length === 32 ? digest.toString('hex') : null;
}

/**
 * The object's MD5 (hex) from its ETag, where the ETag is one: an object stored by one PUT, unencrypted or
 * with SSE-S3. A multipart upload's ETag (`<hex>-<parts>`) and one of an object encrypted with SSE-KMS or
 * SSE-C are not an MD5 of the data (https://docs.aws.amazon.com/AmazonS3/latest/API/API_Object.html, ETag).
 */
export function etagMd5(object: StoredObject): string | null {
  const etag = (object.ETag ?? '').replace(/^"|"$/g, '').toLowerCase();
  if (!/^[0-9a-f]{32}$/.test(etag)) return null;
  const kms = object.ServerSideEncryption === 'aws:kms' || object.ServerSideEncryption === 'aws:kms:dsse';
  return kms || object.SSECustomerAlgorithm ? null : etag;
}

/** Whether a listed ETag is a multipart upload's: then the object's own checksums are not of its bytes. */
export function isMultipartEtag(etag: string | undefined): boolean {
  return (etag ?? '').includes('-');
}

/**
 * The checksums of its bytes that S3 keeps of an object: sha256 and md5 where each holds. `multipart`: the
 * object was stored by a multipart upload, whose ETag is not an MD5 however it looks.
 */
export function storedHashes(object: StoredObject, multipart = false): Record<string, string> {
  const sha256 = fullObjectSha256(object);
  const md5 = multipart ? null : etagMd5(object);
  return { ...(sha256 ? { sha256 } : {}), ...(md5 ? { md5 } : {}) };
}
