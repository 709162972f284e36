import { Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { ServiceError } from '@app/common';
import { AppConfig } from '@app/config';
import { ticketFor, TokenCipher, type TransferPayload } from '@app/jobs';
import { parseEmailOptIn } from '@app/mail';
import { TargetsRegistry, type Target } from '@app/targets';
import { duplicateAction, keywordAction, requiredHeader } from '../common/job-headers';
import { LinkBuilder } from '../common/link-builder';
import { requireContainer } from '../common/require-container';
import { strictValidation } from '../common/validation.pipe';
import { DESTINATION_TOKEN, SOURCE_TOKEN } from '../common/required-header.decorator';
import { JobStarter } from '../jobs/job-starter.service';
import { TransferBodyDto } from './transfer-body.dto';

@Injectable()
export class TransfersService {
  constructor(
    private readonly registry: TargetsRegistry,
    private readonly links: LinkBuilder,
    private readonly config: AppConfig,
    private readonly jobs: JobStarter,
    private readonly cipher: TokenCipher,
  ) {}

  /**
   * Starts a transfer into `destinationName` (into `containerId`, or as a new top-level resource) after every
   * check of api.md's Errors section that can be made before the 202 (decision 10).
   */
  async start(request: Request, destinationName: string, containerId: string | null, rawBody: unknown) {
    const destinationToken = requiredHeader(request, DESTINATION_TOKEN);
    const sourceToken = requiredHeader(request, SOURCE_TOKEN);
    const duplicate = duplicateAction(request);
    const keywords = keywordAction(request);
    const email = parseEmailOptIn(request.header('presqt-email-opt-in'));
    const body = (await strictValidation('body field').transform(rawBody ?? {}, {
      type: 'body',
      metatype: TransferBodyDto,
    })) as TransferBodyDto;

    const destination = this.registry.require(destinationName);
    const source = this.registry.require(body.source_target_name);
    source.requireAction('resource_transfer_out');
    destination.requireAction('resource_transfer_in');
    checkPartners(source, destination);

    const from = await source.connector.open(sourceToken);
    const to = await destination.connector.open(destinationToken);
    const resource = await from.getResource(body.source_resource_id);
    if (containerId === null && resource.kind !== 'container') {
      throw ServiceError.badRequest(
        'PresQT Error: You need to select a resource to transfer into, as a single file can not be uploaded as a new project.',
      );
    }
    if (containerId !== null) await requireContainer(to, containerId);

    await this.jobs.start<TransferPayload>(
      'transfer',
      ticketFor(this.config.secretKey, sourceToken, destinationToken),
      'Transfer is being processed on the server.',
      {
        sourceTargetName: source.name,
        sourceResourceId: resource.id,
        sourceToken: this.cipher.encrypt(sourceToken),
        destinationTargetName: destination.name,
        destinationResourceId: containerId,
        destinationToken: this.cipher.encrypt(destinationToken),
        duplicate,
        keywordAction: keywords,
        keywords: body.keywords,
        email,
      },
    );
    return {
      message: 'The server is processing the request.',
      transfer_job: this.links.url(request, '/api_v1/job_status/transfer/'),
    };
  }
}

function checkPartners(source: Target, destination: Target): void {
  if (!source.entry.supported_transfer_partners.transfer_out.includes(destination.name)) {
    throw ServiceError.badRequest(
      `PresQT Error: '${source.name}' does not allow transfer to '${destination.name}'.`,
    );
  }
  if (!destination.entry.supported_transfer_partners.transfer_in.includes(source.name)) {
    throw ServiceError.badRequest(
      `PresQT Error: '${destination.name}' does not allow transfer from '${source.name}'.`,
    );
  }
}
