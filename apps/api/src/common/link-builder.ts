import { Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { HttpSettings } from './http.settings';

/** Absolute URLs on one base: what services get to build the links of their answers. */
export class Links {
  constructor(readonly base: string) {}

  /** `path` starts with `/`; segments that may hold user data must already be encoded. */
  url(path: string): string {
    return `${this.base}${path}`;
  }

  /** `/api_v1/targets/<t>/resources/<id>` plus `suffix` (`/` is its Detail link), as an absolute URL */
  resourceUrl(targetName: string, id: string, suffix = '/'): string {
    return this.url(`/api_v1/targets/${targetName}/resources/${encodeURIComponent(id)}${suffix}`);
  }
}

/**
 * The base of the links in an answer: PUBLIC_BASE_URL when set, else the request's own scheme and host
 * (docs/behaviour.md#links). Controllers use it, so that services never see the request.
 */
@Injectable()
export class LinkBuilder {
  constructor(private readonly settings: HttpSettings) {}

  for(request: Request): Links {
    return new Links(
      this.settings.publicBaseUrl ?? `${request.protocol}://${request.get('host') ?? 'localhost'}`,
    );
  }
}

export interface Link {
  name: string;
  link: string;
  method: 'GET' | 'POST' | 'PATCH';
}
