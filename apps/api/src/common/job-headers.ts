import type { Request } from 'express';
import { ServiceError } from '@app/common';
import type { KeywordAction } from '@app/jobs';

/** A required request header's value; 400 naming the header when it is absent or blank. */
export function requiredHeader(request: Request, name: string): string {
  const value = request.header(name)?.trim();
  if (!value) throw ServiceError.badRequest(`PresQT Error: '${name}' missing in the request headers.`);
  return value;
}

export function duplicateAction(request: Request): 'ignore' | 'update' {
  const value = requiredHeader(request, 'presqt-file-duplicate-action');
  if (value !== 'ignore' && value !== 'update') {
    throw ServiceError.badRequest(
      `PresQT Error: '${value}' is not a valid file_duplicate_action. The options are 'ignore' or 'update'.`,
    );
  }
  return value;
}

/** The FAIRshare opt-in of a transfer: `yes` or `no`; absent is `no` (docs/behaviour.md#fairshare). */
export function fairshareOptIn(request: Request): boolean {
  const name = 'presqt-fairshare-evaluator-opt-in';
  const value = request.header(name)?.trim();
  if (value === undefined || value === '' || value === 'no') return false;
  if (value === 'yes') return true;
  throw ServiceError.badRequest(`PresQT Error: '${name}' must be 'yes' or 'no'.`);
}

export function keywordAction(request: Request): KeywordAction {
  const value = requiredHeader(request, 'presqt-keyword-action');
  if (value !== 'automatic' && value !== 'manual' && value !== 'none') {
    throw ServiceError.badRequest(
      `PresQT Error: '${value}' is not a valid keyword_action. The options are 'automatic', 'manual', or 'none'.`,
    );
  }
  return value;
}
