import { DynamicModule, Module } from '@nestjs/common';
import { BullAdapter } from '@bull-board/api/bullAdapter';
import { ExpressAdapter } from '@bull-board/express';
import { BullBoardModule } from '@bull-board/nestjs';
import type { Queue } from 'bull';
import { JOB_KINDS } from '@app/jobs';
import { requireAdminToken } from './admin-auth';

export const ADMIN_QUEUES_ROUTE = '/admin/queues';

/** What the dashboard shows of a payload: its tokens are encrypted, but even those stay out, as does the email. */
export function shownPayload(data: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(data).map(([key, value]) => [
      key,
      /token/i.test(key) ? '[hidden]' : key === 'email' && value ? '[set]' : value,
    ]),
  );
}

/** A queue on the dashboard, read-only (jobs are started, cancelled and retried only through the API). */
class DashboardQueue extends BullAdapter {
  constructor(queue: Queue) {
    super(queue, { readOnlyMode: true });
    this.setFormatter('data', shownPayload);
  }
}

/** Bull Board at /admin/queues, only for requests carrying ADMIN_TOKEN; imported only when it is set. */
@Module({})
export class AdminModule {
  static forRoot(adminToken: string): DynamicModule {
    return {
      module: AdminModule,
      imports: [
        BullBoardModule.forRoot({
          route: ADMIN_QUEUES_ROUTE,
          adapter: ExpressAdapter,
          middleware: requireAdminToken(adminToken),
          boardOptions: { uiConfig: { boardTitle: 'PresQT queues' } },
        }),
        ...JOB_KINDS.map((name) => BullBoardModule.forFeature({ name, adapter: DashboardQueue })),
      ],
    };
  }
}
