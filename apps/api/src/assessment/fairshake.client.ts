import { Logger } from '@nestjs/common';
import { ServiceError } from '@app/common';
import type { FairshakeAccount } from './fairshake.settings';
import type { Rubric } from './rubrics';

/** How much of an error answer from FAIRshake is quoted in ours. */
const MAX_DETAIL = 300;

/**
 * FAIRshake's REST API (a Django REST Framework app): `POST /digital_object/` and `POST /assessment/` with
 * `Authorization: Token <token>`, each answering 201 with the created object and its `id`.
 */
export class FairshakeClient {
  private readonly logger = new Logger('FAIRshake');

  constructor(private readonly settings: FairshakeAccount) {}

  /** which FAIRshake this is; ids it gives are only meaningful there */
  get url(): string {
    return this.settings.url;
  }

  /** Registers the digital object of a project; answers FAIRshake's id of it. */
  createDigitalObject(object: {
    url: string;
    title: string;
    rubricId: number;
    rubric: Rubric;
  }): Promise<number> {
    const { projectId } = this.settings;
    return this.create('digital_object', 'register the digital object', {
      url: object.url,
      title: object.title,
      type: object.rubric.digitalObjectType,
      rubrics: [object.rubricId],
      ...(projectId === undefined ? {} : { projects: [projectId] }),
    });
  }

  /** Registers a published assessment of a digital object; answers FAIRshake's id of it. */
  createAssessment(assessment: {
    digitalObjectId: number;
    rubricId: number;
    answers: Record<string, string>;
  }): Promise<number> {
    const { projectId } = this.settings;
    return this.create('assessment', 'register the assessment', {
      target: assessment.digitalObjectId,
      rubric: assessment.rubricId,
      ...(projectId === undefined ? {} : { project: projectId }),
      // the person submitting answers about their own project
      methodology: 'self',
      published: true,
      answers: Object.entries(assessment.answers).map(([metric, answer]) => ({
        metric: Number(metric),
        answer: Number(answer),
      })),
    });
  }

  private async create(collection: string, step: string, body: object): Promise<number> {
    let status: number;
    let text: string;
    try {
      const response = await fetch(`${this.settings.url}/${collection}/`, {
        method: 'POST',
        headers: {
          Authorization: `Token ${this.settings.token}`,
          'Content-Type': 'application/json',
          Accept: 'application/json',
        },
        body: JSON.stringify(body),
        // covers reading the body too
        signal: AbortSignal.timeout(this.settings.timeoutMs),
      });
      status = response.status;
      text = await response.text();
    } catch (error) {
      throw this.failure(step, unreachable(error, this.settings.timeoutMs));
    }
    if (status === 401 || status === 403) {
      throw this.failure(step, `it refused the configured FAIRSHAKE_TOKEN (HTTP ${status}${detail(text)})`);
    }
    if (status < 200 || status >= 300) throw this.failure(step, `it answered HTTP ${status}${detail(text)}`);
    const id = parseId(text);
    if (id === undefined) throw this.failure(step, `its answer (HTTP ${status}) held no id`);
    return id;
  }

  /**
   * 502: with FAIRshake configured, the digital object id answered must be FAIRshake's, and the assessment must
   * be there; an id from our own sequence instead would look the same to the client but mean nothing at FAIRshake.
   */
  private failure(step: string, reason: string): ServiceError {
    const message = `PresQT Error: FAIRshake (${this.settings.url}) failed to ${step}: ${reason}. The assessment was not stored; please try again later.`;
    this.logger.warn(message);
    return new ServiceError(502, message);
  }
}

function unreachable(error: unknown, timeoutMs: number): string {
  if (error instanceof Error && error.name === 'TimeoutError')
    return `it did not answer within ${timeoutMs} ms`;
  // fetch fails with "fetch failed" and puts the reason (ECONNREFUSED, ENOTFOUND, ...) in its cause
  const cause = error instanceof Error ? error.cause : undefined;
  const why =
    cause instanceof Error ? ((cause as NodeJS.ErrnoException).code ?? cause.message) : String(error);
  return `it could not be reached (${why})`;
}

/** FAIRshake's own explanation: DRF's `{"detail": ...}`, or the start of whatever it sent. */
function detail(text: string): string {
  let explanation = text.replace(/\s+/g, ' ').trim();
  try {
    const parsed = JSON.parse(text) as { detail?: unknown };
    if (typeof parsed.detail === 'string') explanation = parsed.detail;
  } catch {
    // not JSON: quote the text
  }
  return explanation ? `: ${explanation.slice(0, MAX_DETAIL)}` : '';
}

function parseId(text: string): number | undefined {
  try {
    const { id } = JSON.parse(text) as { id?: unknown };
    return Number.isSafeInteger(id) ? (id as number) : undefined;
  } catch {
    return undefined;
  }
}
