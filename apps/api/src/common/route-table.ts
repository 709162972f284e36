import { Injectable } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';

interface RouteLayer {
  route?: { methods: Record<string, boolean> };
  match(path: string): boolean;
}

/** Which HTTP methods the registered routes accept for a path, so a wrong method can answer 405. */
@Injectable()
export class RouteTable {
  constructor(private readonly adapterHost: HttpAdapterHost) {}

  methodsFor(path: string): string[] {
    const app = this.adapterHost.httpAdapter.getInstance<{ router?: { stack: RouteLayer[] } }>();
    const methods = new Set<string>();
    for (const layer of app.router?.stack ?? []) {
      if (layer.route && layer.match(path)) {
        for (const [method, enabled] of Object.entries(layer.route.methods)) {
          if (enabled && method !== '_all') methods.add(method.toUpperCase());
        }
      }
    }
    if (methods.has('GET')) methods.add('HEAD');
    return [...methods].sort();
  }
}
