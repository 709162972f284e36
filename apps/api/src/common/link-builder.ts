import { Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { AppConfig } from '@app/config';

/** Absolute URLs for links in bodies: from PUBLIC_BASE_URL when set, else from the request (decision 3). */
@Injectable()
export class LinkBuilder {
  constructor(private readonly config: AppConfig) {}

  base(request: Request): string {
    return this.config.publicBaseUrl ?? `${request.protocol}://${request.get('host') ?? 'localhost'}`;
  }

  /** `path` starts with `/`; segments that may hold user data must already be encoded. */
  url(request: Request, path: string): string {
    return `${this.base(request)}${path}`;
  }
}

export interface Link {
  name: string;
  link: string;
  method: 'GET' | 'POST' | 'PATCH';
}
