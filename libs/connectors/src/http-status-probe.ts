import type { TargetStatus } from './connector';

/** Whether a target's public API answers at its status URL, without credentials. */
export async function probeHttpStatus(url: string, timeoutMs: number): Promise<TargetStatus> {
  try {
    const response = await fetch(url, {
      method: 'GET',
      signal: AbortSignal.timeout(timeoutMs),
      redirect: 'follow',
    });
    await response.body?.cancel();
    return response.ok
      ? { ok: true, detail: 'Connected to server successfully' }
      : { ok: false, detail: `The server answered HTTP ${response.status}` };
  } catch (error) {
    const reason = error as Error & { cause?: { code?: string; message?: string } };
    if (reason.name === 'TimeoutError') {
      return { ok: false, detail: `The server did not answer within ${timeoutMs} ms` };
    }
    return {
      ok: false,
      detail: `Could not connect: ${reason.cause?.code ?? reason.cause?.message ?? reason.message}`,
    };
  }
}
