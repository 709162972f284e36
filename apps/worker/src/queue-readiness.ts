import { getQueueToken } from '@nestjs/bull';
import { Injectable } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import type { Queue } from 'bull';
import { JOB_KINDS } from '@app/jobs';

/** Waits until every job queue has its Redis connection. */
@Injectable()
export class QueueReadiness {
  constructor(private readonly moduleRef: ModuleRef) {}

  async waitUntilReady(): Promise<string[]> {
    await Promise.all(
      JOB_KINDS.map((kind) => this.moduleRef.get<Queue>(getQueueToken(kind), { strict: false }).isReady()),
    );
    return [...JOB_KINDS];
  }
}
