import { Injectable } from '@nestjs/common';
import { ServiceError } from '@app/common';
import { ProcessSettings } from '@app/config';
import { JobFiles } from '@app/job-files';
import { inProgress, JobStore, jobTicket, type JobRecord } from '@app/jobs';
import type { Links } from '../common/link-builder';
import { downloadZip } from '../jobs/download-zip';
import type { ProposalDto, ProposalPendingDto, ProposalStartedDto } from './dto/emulation.dto';
import { EmulationStore } from './emulation-store';
import { ProposerClient, type ProposalState } from './proposer-client';

const NO_DOWNLOAD = 'PresQT Error: A resource_download does not exist for this user on the server.';

/**
 * The emulation service (docs/behaviour.md#emulation): hands a user's finished download to the EaaSI environment proposer
 * through a single-use link, and relays the proposal task's progress and result.
 */
@Injectable()
export class EmulationService {
  constructor(
    private readonly jobs: JobStore,
    private readonly store: EmulationStore,
    private readonly proposer: ProposerClient,
    private readonly processSettings: ProcessSettings,
    private readonly files: JobFiles,
  ) {}

  /** The proposal of the token's last download, as the `eaasi` alias starts it (the PresQT web client sends no ticket). */
  proposeLastDownload(links: Links, token: string): Promise<ProposalStartedDto> {
    return this.propose(links, token, this.downloadTicket(token), 'eaasi');
  }

  /** `service`: the path segment the proposal link goes under, ours or the `eaasi` alias */
  async propose(
    links: Links,
    token: string,
    ticketNumber: string,
    service: 'emulation' | 'eaasi' = 'emulation',
  ): Promise<ProposalStartedDto> {
    const ticket = this.downloadTicket(token);
    if (ticketNumber !== ticket) {
      throw ServiceError.notFound(
        `PresQT Error: Invalid ticket number, '${ticketNumber}'. Send the ticket_number of this token's download.`,
      );
    }
    const record = await this.finishedDownload(ticket);
    await downloadZip(this.files, record);
    // the token lives exactly as long as the download's record and zip (docs/behaviour.md#job-files)
    const ttlMs = await this.jobs.expiresInMs('download', ticket);
    if (ttlMs === null) throw ServiceError.notFound(NO_DOWNLOAD);

    const emulationToken = await this.store.grant(ticket, record.runId, ttlMs);
    const dataUrl = links.url(
      `/api_v1/services/emulation/${ticket}/?emulation_token=${encodeURIComponent(emulationToken)}`,
    );
    let id: string;
    try {
      id = await this.proposer.submit(dataUrl);
    } catch (error) {
      await this.store.revoke(ticket, emulationToken);
      throw error;
    }
    await this.store.rememberProposal(id);
    return {
      id,
      message: 'Proposal task was submitted.',
      proposal_link: links.url(`/api_v1/services/${service}/proposals/${encodeURIComponent(id)}/`),
    };
  }

  /** 202 while the task runs, 200 with the proposal once done; a failed task answers 502 with its reason. */
  async proposal(
    id: string,
  ): Promise<{ status: 200; body: ProposalDto } | { status: 202; body: ProposalPendingDto }> {
    const known = await this.store.proposal(id);
    if (!known) {
      throw ServiceError.notFound(
        `PresQT Error: Invalid proposal id, '${id}'. Use the proposal_link answered when the proposal started.`,
      );
    }
    const current = known.state === 'pending' ? await this.refresh(id) : known;
    switch (current.state) {
      case 'pending':
        return { status: 202, body: { message: 'Proposal task is still in progress.' } };
      case 'finished':
        return { status: 200, body: current.proposal };
      case 'failed':
        throw new ServiceError(502, current.error);
    }
  }

  /** The download run whose zip the holder of this emulation token may fetch, once. */
  async redeem(ticket: string, emulationToken: string): Promise<JobRecord<'download'>> {
    const record = await this.jobs.get('download', ticket);
    if (!record) throw ServiceError.notFound(`PresQT Error: Invalid ticket number, '${ticket}'.`);
    const runId = await this.store.redeem(ticket, emulationToken);
    if (runId === null) {
      throw new ServiceError(
        401,
        "PresQT Error: 'emulation_token' is not valid for this download; each token can be used once.",
      );
    }
    if (runId !== record.runId || record.state !== 'finished') {
      throw ServiceError.notFound(
        'PresQT Error: File unavailable: the download this token was made for is gone.',
      );
    }
    return record;
  }

  /** Asks the proposer how the task is doing, and keeps its outcome once it has one. */
  private async refresh(id: string): Promise<ProposalState> {
    let state: ProposalState;
    try {
      state = await this.proposer.poll(id);
    } catch (error) {
      // a concurrent poll may have taken the result, which the proposer hands out only once
      const settled = await this.store.proposal(id);
      if (settled && settled.state !== 'pending') return settled;
      throw error;
    }
    if (state.state !== 'pending') await this.store.settleProposal(id, state);
    return state;
  }

  /** The ticket of the token's download. */
  private downloadTicket(token: string): string {
    return jobTicket(this.processSettings.secretKey, 'download', { source: token });
  }

  private async finishedDownload(ticket: string): Promise<JobRecord<'download'>> {
    const record = await this.jobs.get('download', ticket);
    if (!record) throw ServiceError.notFound(NO_DOWNLOAD);
    if (inProgress(record.state)) {
      throw ServiceError.badRequest(
        'PresQT Error: the download is still in progress; start the proposal once it has finished.',
      );
    }
    if (record.state !== 'finished') {
      throw ServiceError.notFound(
        `PresQT Error: this user's last download ${record.state === 'cancelled' ? 'was cancelled' : 'failed'}; download the resource again first.`,
      );
    }
    return record;
  }
}
