import { applyDecorators, HttpCode } from '@nestjs/common';
import {
  ApiBody,
  ApiConsumes,
  ApiExtraModels,
  ApiHeader,
  ApiOperation,
  ApiResponse,
  getSchemaPath,
} from '@nestjs/swagger';
import { ApiErrors } from '../common/dto/error.dto';
import { DESTINATION_TOKEN, SOURCE_TOKEN } from '../common/required-header.decorator';
import { TransferBodyDto } from '../transfers/transfer-body.dto';

/** What both upload/transfer paths document: the same headers, the two kinds of body, the same answers. */
export function ApiUploadOrTransfer(summary: string) {
  return applyDecorators(
    HttpCode(202),
    ApiOperation({
      summary,
      description:
        'A multipart body with the part `presqt-file` (a BagIt zip) is an upload; a JSON body ' +
        '{source_target_name, source_resource_id, keywords} is a transfer from another target. Everything that ' +
        'can be checked is checked before the 202.',
    }),
    ApiExtraModels(TransferBodyDto),
    ApiConsumes('multipart/form-data', 'application/json'),
    ApiBody({
      schema: {
        oneOf: [
          {
            type: 'object',
            required: ['presqt-file'],
            properties: { 'presqt-file': { type: 'string', format: 'binary' } },
          },
          { $ref: getSchemaPath(TransferBodyDto) },
        ],
      },
    }),
    ApiHeader({ name: DESTINATION_TOKEN, required: true }),
    ApiHeader({
      name: SOURCE_TOKEN,
      required: false,
      description: 'transfers: the token at the source target',
    }),
    ApiHeader({ name: 'presqt-file-duplicate-action', required: true, enum: ['ignore', 'update'] }),
    ApiHeader({
      name: 'presqt-keyword-action',
      required: false,
      enum: ['automatic', 'manual', 'none'],
      description: 'transfers',
    }),
    ApiHeader({ name: 'presqt-email-opt-in', required: true, description: 'empty, or one email address' }),
    ApiHeader({
      name: 'presqt-fairshare-evaluator-opt-in',
      required: false,
      enum: ['yes', 'no'],
      description: 'transfers: yes evaluates the written resource with every FAIRshare test (absent: no)',
    }),
    ApiResponse({ status: 202, description: '{message, upload_job} or {message, transfer_job}' }),
    ApiErrors({
      400:
        'a header missing or invalid; body field missing or invalid; target lacks the action; transfer partners ' +
        'not allowed; not a container; the user has a job of this kind in progress; (upload) no presqt-file ' +
        'part, not a zip, unsafe or oversized zip, not a valid bag, checksums fail, bad layout for a new project',
      401: 'a token the target rejects',
      403: 'no access to the resource',
      404: 'invalid target name or source target name; resource unknown',
      410: 'resource no longer available',
      413: 'upload larger than MAX_UPLOAD_BYTES',
    }),
  );
}
