import { Injectable } from '@nestjs/common';
import { ServiceError } from '@app/common';
import { EmulationSettings } from './emulation.settings';

/** A finished proposal: the image made from the data and the emulation environments suggested for it. */
export interface Proposal {
  image_url: string;
  image_type: string;
  environments: unknown[];
  suggested: Record<string, unknown>;
}

export type ProposalState =
  { state: 'pending' } | { state: 'finished'; proposal: Proposal } | { state: 'failed'; error: string };

/**
 * Client of the EaaSI environment proposer (EMULATION_API_URL), whose documented API is:
 * - `POST /proposals {data_url, data_type}` → 202 `{id, message}`, then the proposer fetches `data_url`;
 * - `GET /waitqueue/{id}` → 200 with a Location header while the task runs, 303 to `/proposals/{id}` once
 *   it has ended, 404 `{message}` for an unknown id;
 * - `GET /proposals/{id}` → 200 the proposal, or 500 `{message, cause}` when the task failed. The proposer
 *   forgets the task once it has answered this, so the caller must keep the outcome.
 */
@Injectable()
export class ProposerClient {
  constructor(private readonly settings: EmulationSettings) {}

  /** The proposer's base URL; 503 when this deployment has none (docs/behaviour.md#emulation). */
  baseUrl(): string {
    if (!this.settings.apiUrl) {
      throw new ServiceError(
        503,
        'PresQT Error: the emulation service is not available on this server (EMULATION_API_URL is not set).',
      );
    }
    return this.settings.apiUrl;
  }

  /** Starts a proposal task for the BagIt zip at `dataUrl`; answers the task's id. */
  async submit(dataUrl: string): Promise<string> {
    const doing = 'starting the proposal';
    const response = await this.request('/proposals', doing, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ data_url: dataUrl, data_type: 'bagit+zip' }),
    });
    const body = await this.readBody(response, doing);
    if (response.status !== 202) throw badAnswer(response.status, body, doing);
    const id = (body as { id?: unknown } | null)?.id;
    if ((typeof id !== 'string' && typeof id !== 'number') || String(id) === '') {
      throw new ServiceError(
        502,
        `PresQT Error: the emulation service accepted the proposal but gave no task id while ${doing}.`,
      );
    }
    return String(id);
  }

  async poll(id: string): Promise<ProposalState> {
    const doing = `polling proposal '${id}'`;
    // fetch follows the 303 of an ended task to its result
    const response = await this.request(`/waitqueue/${encodeURIComponent(id)}`, doing, {});
    if (response.ok && response.headers.has('location')) {
      await response.body?.cancel();
      return { state: 'pending' };
    }
    const body = await this.readBody(response, doing);
    if (response.status === 200) return { state: 'finished', proposal: proposalOf(body) };
    if (response.redirected && response.status === 500) {
      return {
        state: 'failed',
        error: `PresQT Error: the emulation service could not make a proposal from this download: ${detailOf(body)}`,
      };
    }
    throw badAnswer(response.status, body, doing);
  }

  private async request(path: string, doing: string, init: RequestInit): Promise<Response> {
    const url = `${this.baseUrl()}${path}`;
    try {
      return await fetch(url, { ...init, signal: AbortSignal.timeout(this.settings.timeoutMs) });
    } catch (error) {
      throw this.unreachable(error, doing);
    }
  }

  /** The parsed JSON body; a body that is not JSON is kept as text, to be quoted in an error. */
  private async readBody(response: Response, doing: string): Promise<unknown> {
    let text: string;
    try {
      text = await response.text();
    } catch (error) {
      throw this.unreachable(error, doing);
    }
    if (text.trim() === '') return null;
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return text;
    }
  }

  private unreachable(error: unknown, doing: string): ServiceError {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    const reason =
      (error as Error).name === 'TimeoutError'
        ? `no answer within ${this.settings.timeoutMs} ms`
        : (cause?.code ?? cause?.message ?? (error as Error).message);
    return new ServiceError(
      502,
      `PresQT Error: the emulation service could not be reached while ${doing}: ${reason}.`,
    );
  }
}

function proposalOf(body: unknown): Proposal {
  const { image_url, image_type, environments, suggested } = isObject(body) ? body : {};
  if (typeof image_url !== 'string' || typeof image_type !== 'string') {
    throw new ServiceError(
      502,
      'PresQT Error: the emulation service answered a finished proposal without image_url and image_type.',
    );
  }
  // the proposer's serializer writes null for an empty collection
  return {
    image_url,
    image_type,
    environments: Array.isArray(environments) ? (environments as unknown[]) : [],
    suggested: isObject(suggested) ? suggested : {},
  };
}

function badAnswer(status: number, body: unknown, doing: string): ServiceError {
  const detail = detailOf(body);
  return new ServiceError(
    502,
    `PresQT Error: the emulation service answered ${status} while ${doing}${detail ? `: ${detail}` : '.'}`,
  );
}

/** The proposer's own words: `{message, cause}` bodies, or the start of a text body. */
function detailOf(body: unknown): string {
  if (typeof body === 'string') return body.slice(0, 300);
  if (!isObject(body)) return '';
  const { message, cause } = body;
  return [message, cause].filter((part) => typeof part === 'string' && part !== '').join(' ');
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
