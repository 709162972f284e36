import type { Readable } from 'node:stream';
import { ConnectorError } from '@app/connectors';

/** The status and message of the ConnectorError `promise` rejects with; throws when it does anything else. */
export async function failureOf(promise: Promise<unknown>): Promise<{ status: number; message: string }> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof ConnectorError)) throw new Error(`expected a ConnectorError, got ${String(error)}`);
  return { status: error.status, message: error.message };
}

/** The status of the ConnectorError `promise` rejects with. */
export async function statusOf(promise: Promise<unknown>): Promise<number> {
  return (await failureOf(promise)).status;
}

export async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
