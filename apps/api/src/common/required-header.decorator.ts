import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import { ServiceError } from '@app/common';

/** The value of a required request header; answers 400 naming the header when it is absent or blank. */
export const RequiredHeader = createParamDecorator((name: string, context: ExecutionContext): string => {
  const value = context.switchToHttp().getRequest<Request>().headers[name];
  const text = Array.isArray(value) ? value[0] : value;
  if (text === undefined || text.trim() === '') {
    throw ServiceError.badRequest(`PresQT Error: '${name}' missing in the request headers.`);
  }
  return text.trim();
});

export const SOURCE_TOKEN = 'presqt-source-token';
export const DESTINATION_TOKEN = 'presqt-destination-token';
