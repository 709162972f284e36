import { randomUUID } from 'node:crypto';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Injectable } from '@nestjs/common';
import { PathLimits, ZipLimits } from '@app/archive';
import { ServiceError } from '@app/common';
import { ProcessSettings } from '@app/config';
import { incomingUploadsDir, JobFiles } from '@app/job-files';
import {
  inProgress,
  JobStore,
  jobTicket,
  jsonStatusPath,
  TokenCipher,
  UPLOAD_BAG_FILE,
  UPLOAD_PACKAGE_FILE,
  UPLOAD_PAYLOAD_FILE,
  type UploadPayload,
} from '@app/jobs';
import { TargetsRegistry } from '@app/targets';
import type { Links } from '../common/link-builder';
import { requireContainer } from '../common/require-container';
import { IN_PROGRESS_ERROR, JobStarter } from '../jobs/job-starter.service';
import { inspectPackage } from './inspect-package';
import { InspectionSlots } from './inspection-slots';
import { UploadReservations } from './upload-reservations';
import { UploadSettings } from './upload.settings';

/** An upload start as the controller read it from the request's headers. */
export interface UploadRequest {
  targetName: string;
  /** the container to upload into; null for a new top-level resource */
  containerId: string | null;
  token: string;
  duplicate: UploadPayload['duplicate'];
  email: string | null;
}

/** Streams the request's package to `dir/name` (refusing more than `maxBytes`) and answers its path. */
export type PackageReceiver = (dir: string, name: string, maxBytes: number) => Promise<string>;

@Injectable()
export class UploadsService {
  private readonly inspections: InspectionSlots;

  constructor(
    private readonly registry: TargetsRegistry,
    private readonly processSettings: ProcessSettings,
    private readonly settings: UploadSettings,
    private readonly zipLimits: ZipLimits,
    private readonly pathLimits: PathLimits,
    private readonly jobs: JobStarter,
    private readonly store: JobStore,
    private readonly cipher: TokenCipher,
    private readonly reservations: UploadReservations,
    private readonly files: JobFiles,
  ) {
    this.inspections = new InspectionSlots(settings.inspections);
  }

  /**
   * Starts an upload (docs/behaviour.md#checks-before-the-202): the cheap checks first (headers, target, token, container, the user's
   * slot), then the package is received to disk and checked whole (docs/behaviour.md#upload-packages) before the 202. A refused
   * package leaves nothing behind.
   */
  async start(links: Links, upload: UploadRequest, receivePackage: PackageReceiver) {
    const { targetName, containerId, token, duplicate, email } = upload;
    const target = this.registry.require(targetName);
    target.requireAction('resource_upload');
    const session = await target.connector.open(token);
    if (containerId !== null) await requireContainer(session, containerId);
    const ticket = jobTicket(this.processSettings.secretKey, 'upload', { destination: token });
    // claimed before a byte of the package is read: a user's simultaneous uploads are refused at once
    const reservation = await this.reservations.reserve(ticket);
    const current = await this.store.get('upload', ticket);
    if (!reservation || (current && inProgress(current.state))) {
      await reservation?.release();
      throw ServiceError.badRequest(IN_PROGRESS_ERROR);
    }

    const incoming = join(incomingUploadsDir(this.processSettings.dataDir), randomUUID());
    try {
      const file = await receivePackage(incoming, UPLOAD_PACKAGE_FILE, this.settings.maxBytes);
      const payloadFile = join(incoming, UPLOAD_PAYLOAD_FILE);
      const bag = await this.inspections.run(() =>
        inspectPackage({
          zipFile: file,
          limits: this.zipLimits,
          pathLimits: this.pathLimits,
          newProject: containerId === null,
          writable: target.connector,
          payloadFile,
        }),
      );
      await this.jobs.start(
        'upload',
        ticket,
        { targetName, containerId, destinationToken: this.cipher.encrypt(token), duplicate, email },
        async (record) => {
          // handed to the worker through the job-file store (with S3, uploaded before the 202)
          const bagFile = join(incoming, UPLOAD_BAG_FILE);
          await writeFile(bagFile, JSON.stringify(bag));
          await this.files.keep(record, UPLOAD_BAG_FILE, bagFile);
          await this.files.keep(record, UPLOAD_PAYLOAD_FILE, payloadFile);
          await this.files.keep(record, UPLOAD_PACKAGE_FILE, file);
        },
      );
    } finally {
      await rm(incoming, { recursive: true, force: true });
      await reservation.release();
    }
    return {
      message: 'The server is processing the request.',
      upload_job: links.url(jsonStatusPath('upload')),
    };
  }
}
