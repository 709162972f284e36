import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import { DESTINATION_TOKEN_HEADER, SOURCE_TOKEN_HEADER } from '@app/jobs';
import { requiredHeader } from './job-headers';

/** The value of a required request header; answers 400 naming the header when it is absent or blank. */
export const RequiredHeader = createParamDecorator((name: string, context: ExecutionContext): string =>
  requiredHeader(context.switchToHttp().getRequest<Request>(), name),
);

export const SOURCE_TOKEN = SOURCE_TOKEN_HEADER;
export const DESTINATION_TOKEN = DESTINATION_TOKEN_HEADER;
