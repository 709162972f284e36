import { Injectable } from '@nestjs/common';
import { ServiceError } from '@app/common';
import { SEARCH_FILTERS, type CollectionQuery } from '@app/connectors';
import { ProcessSettings } from '@app/config';
import { jobStatusPath, jobTicket, jsonStatusPath, TokenCipher } from '@app/jobs';
import { parseEmailOptIn } from '@app/mail';
import { TargetsRegistry } from '@app/targets';
import { JobStarter } from '../jobs/job-starter.service';
import type { Links } from '../common/link-builder';
import type { CollectionQueryDto } from './dto/collection-query.dto';
import { ResourcePresenter } from './resource.presenter';

/** What the connectors answer when the target, not the request, is at fault. */
const TARGET_FAILURES = [502, 503, 504];

@Injectable()
export class ResourcesService {
  constructor(
    private readonly registry: TargetsRegistry,
    private readonly processSettings: ProcessSettings,
    private readonly jobs: JobStarter,
    private readonly cipher: TokenCipher,
  ) {}

  async collection(links: Links, targetName: string, token: string, query: CollectionQueryDto) {
    const target = this.registry.require(targetName);
    target.requireAction('resource_collection');
    const search = this.searchOf(target.entry.readable_name, target.entry.search_parameters, query);
    const page = Number(query.page ?? '1');

    const session = await target.connector.open(token);
    const result = await session.listResources({ search, page });

    const presenter = new ResourcePresenter(links, target);
    const totalPages = Math.max(1, result.totalPages);
    const searchPart = search ? `${search.filter}=${encodeURIComponent(search.value)}&` : '';
    const basePage = links.url(`/api_v1/targets/${target.name}/resources/?${searchPart}page=`);
    return {
      resources: result.resources.map((resource) => presenter.summary(resource)),
      pages: {
        first_page: `${basePage}1`,
        previous_page: page > 1 ? `${basePage}${Math.min(page - 1, totalPages)}` : null,
        next_page: page < totalPages ? `${basePage}${page + 1}` : null,
        last_page: `${basePage}${totalPages}`,
        total_pages: totalPages,
        per_page: result.perPage,
        base_page: basePage,
      },
    };
  }

  /**
   * A resource's detail. When the target itself fails (unreachable, too slow, rate-limited, answering badly),
   * the answer is a placeholder detail saying so, with 200: the PresQT web client stops working on any error
   * here (docs/behaviour.md#resource-detail-when-the-target-fails).
   */
  async detail(links: Links, targetName: string, id: string, token: string) {
    const target = this.registry.require(targetName);
    target.requireAction('resource_detail');
    const presenter = new ResourcePresenter(links, target);
    try {
      const session = await target.connector.open(token);
      return presenter.detail(await session.getResource(id));
    } catch (error) {
      if (error instanceof ServiceError && TARGET_FAILURES.includes(error.status)) {
        return presenter.unavailable(id, error.message);
      }
      throw error;
    }
  }

  /**
   * Starts a download after checking everything that can be checked first (docs/behaviour.md#checks-before-the-202): the headers, the
   * target and its action, the token and the resource at the target, and the user's download slot.
   */
  async startDownload(
    links: Links,
    targetName: string,
    id: string,
    token: string,
    emailHeader: string | undefined,
  ) {
    const email = parseEmailOptIn(emailHeader);
    const target = this.registry.require(targetName);
    target.requireAction('resource_download');
    const session = await target.connector.open(token);
    await session.getResource(id, { summary: true });
    const ticket = jobTicket(this.processSettings.secretKey, 'download', { source: token });
    await this.jobs.start('download', ticket, {
      targetName,
      resourceId: id,
      sourceToken: this.cipher.encrypt(token),
      email,
    });
    return {
      message: 'The server is processing the request.',
      download_job_zip: links.url(jobStatusPath('download', 'zip')),
      download_job_json: links.url(jsonStatusPath('download')),
      ticket_number: ticket,
    };
  }

  /** The one search filter of the query (docs/behaviour.md#search); a blank value means no search. */
  private searchOf(
    readableName: string,
    supported: readonly string[],
    query: CollectionQueryDto,
  ): CollectionQuery['search'] {
    const given = SEARCH_FILTERS.filter((filter) => query[filter] !== undefined);
    if (given.length > 1) {
      throw ServiceError.badRequest(
        `PresQT Error: The search query is not formatted correctly. Use only one search filter at a time; got ${given.join(' and ')}.`,
      );
    }
    const [filter] = given;
    if (filter === undefined) return undefined;
    if (!supported.includes(filter)) {
      throw ServiceError.badRequest(
        `PresQT Error: ${readableName} does not support ${filter} as a search parameter. Supported: ${supported.join(', ') || 'none'}.`,
      );
    }
    const value = (query[filter] ?? '').trim();
    return value === '' ? undefined : { filter, value };
  }
}
