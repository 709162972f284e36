import { Injectable } from '@nestjs/common';
import { ServiceError } from '@app/common';
import { ProcessSettings } from '@app/config';
import { jobTicket, jsonStatusPath, TokenCipher, type KeywordAction, type TransferPayload } from '@app/jobs';
import { TargetsRegistry, type Target } from '@app/targets';
import type { Links } from '../common/link-builder';
import { requireContainer } from '../common/require-container';
import { JobStarter } from '../jobs/job-starter.service';
import type { TransferBodyDto } from './transfer-body.dto';

/** A transfer start as the controller read it: headers checked, body validated. */
export interface TransferRequest {
  destinationName: string;
  /** the container to transfer into; null for a new top-level resource */
  containerId: string | null;
  sourceToken: string;
  destinationToken: string;
  duplicate: TransferPayload['duplicate'];
  keywordAction: KeywordAction;
  email: string | null;
  /** evaluate the written resource with every FAIRshare test once the transfer has finished */
  fairshare: boolean;
  body: TransferBodyDto;
}

@Injectable()
export class TransfersService {
  constructor(
    private readonly registry: TargetsRegistry,
    private readonly processSettings: ProcessSettings,
    private readonly jobs: JobStarter,
    private readonly cipher: TokenCipher,
  ) {}

  /**
   * Starts a transfer into its destination (into `containerId`, or as a new top-level resource) after every
   * check that can be made before the 202 (docs/behaviour.md#checks-before-the-202).
   */
  async start(links: Links, transfer: TransferRequest) {
    const { destinationName, containerId, sourceToken, destinationToken, body } = transfer;
    const destination = this.registry.require(destinationName);
    const source = this.registry.require(body.source_target_name);
    source.requireAction('resource_transfer_out');
    destination.requireAction('resource_transfer_in');
    checkPartners(source, destination);

    const from = await source.connector.open(sourceToken);
    const to = await destination.connector.open(destinationToken);
    const resource = await from.getResource(body.source_resource_id, { summary: true });
    if (containerId === null && resource.kind !== 'container') {
      throw ServiceError.badRequest(
        'PresQT Error: You need to select a resource to transfer into, as a single file can not be uploaded as a new project.',
      );
    }
    if (containerId !== null) await requireContainer(to, containerId);

    const tokens = { source: sourceToken, destination: destinationToken };
    await this.jobs.start('transfer', jobTicket(this.processSettings.secretKey, 'transfer', tokens), {
      sourceTargetName: source.name,
      sourceResourceId: resource.id,
      sourceToken: this.cipher.encrypt(sourceToken),
      destinationTargetName: destination.name,
      destinationResourceId: containerId,
      destinationToken: this.cipher.encrypt(destinationToken),
      duplicate: transfer.duplicate,
      keywordAction: transfer.keywordAction,
      keywords: body.keywords,
      fairshareLinkBase: transfer.fairshare ? links.base : null,
      email: transfer.email,
    });
    return {
      message: 'The server is processing the request.',
      transfer_job: links.url(jsonStatusPath('transfer')),
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
