import { Injectable } from '@nestjs/common';
import { TargetsRegistry } from '@app/targets';

export interface TargetStatusReport {
  name: string;
  /** the field name that existing clients read */
  service: string;
  readable_name: string;
  status: 'ok' | 'error';
  detail: string;
}

const CACHE_MS = 30_000;

/** Reachability of every target's upstream, probed in parallel and cached briefly (clients poll it). */
@Injectable()
export class StatusesService {
  private cached?: { at: number; reports: Promise<TargetStatusReport[]> };

  constructor(private readonly registry: TargetsRegistry) {}

  statuses(): Promise<TargetStatusReport[]> {
    if (!this.cached || Date.now() - this.cached.at > CACHE_MS) {
      this.cached = { at: Date.now(), reports: this.probeAll() };
    }
    return this.cached.reports;
  }

  private probeAll(): Promise<TargetStatusReport[]> {
    return Promise.all(
      this.registry.targets.map(async (target) => {
        const { ok, detail } = await target
          .status()
          .catch((error: Error) => ({ ok: false, detail: error.message }));
        return {
          name: target.name,
          service: target.name,
          readable_name: target.entry.readable_name,
          status: ok ? ('ok' as const) : ('error' as const),
          detail,
        };
      }),
    );
  }
}
