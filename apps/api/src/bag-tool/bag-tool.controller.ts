import { Controller, HttpCode, Post, Req, Res } from '@nestjs/common';
import { ApiBody, ApiConsumes, ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Request, Response } from 'express';
import { ProcessSettings } from '@app/config';
import { ApiErrors } from '../common/dto/error.dto';
import { receiveUpload } from '../uploads/receive-upload';
import { UploadSettings } from '../uploads/upload.settings';
import { BagToolService } from './bag-tool.service';

@ApiTags('tools')
@Controller('api_v1/bag_and_zip')
export class BagToolController {
  constructor(
    private readonly bagTool: BagToolService,
    private readonly processSettings: ProcessSettings,
    private readonly uploads: UploadSettings,
  ) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Make a BagIt bag of the files of a zip',
    description:
      "The zip's files become the payload (data/) of a BagIt 1.0 bag with md5, sha1, sha256 and sha512 " +
      'manifests, answered as a zip named presqt_<the uploaded name>, its bag folder presqt_bag/. No token is ' +
      'needed.',
  })
  @ApiConsumes('multipart/form-data')
  @ApiBody({
    schema: {
      type: 'object',
      required: ['presqt-file'],
      properties: { 'presqt-file': { type: 'string', format: 'binary', description: 'a zip' } },
    },
  })
  @ApiProduces('application/zip')
  @ApiOkResponse({ description: 'the bag, zipped', schema: { type: 'string', format: 'binary' } })
  @ApiErrors({
    400: 'no presqt-file part; not a zip; an unsafe entry (a path that escapes, a link) or a damaged zip',
    413: 'larger than MAX_UPLOAD_BYTES, or holding more than the zip limits allow',
  })
  async bagAndZip(@Req() request: Request, @Res() response: Response): Promise<void> {
    const incoming = join(this.processSettings.dataDir, 'uploads', randomUUID());
    try {
      const file = await receiveUpload(request, response, incoming, 'tool.zip', this.uploads.maxBytes);
      const writeBag = await this.bagTool.open(file);
      response.status(200).attachment(`presqt_${request.file?.originalname ?? 'bag.zip'}`);
      response.type('application/zip');
      // once the zip has started, an error can only cut the answer short (the client sees a broken zip)
      await writeBag(response).catch(() => response.destroy());
    } finally {
      await rm(incoming, { recursive: true, force: true });
    }
  }
}
