import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import { requiredHeader } from './job-headers';

/** The value of a required request header; answers 400 naming the header when it is absent or blank. */
export const RequiredHeader = createParamDecorator((name: string, context: ExecutionContext): string =>
  requiredHeader(context.switchToHttp().getRequest<Request>(), name),
);

export const SOURCE_TOKEN = 'presqt-source-token';
export const DESTINATION_TOKEN = 'presqt-destination-token';
