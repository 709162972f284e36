import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { CLIENT_ALIASES_TAG } from './common/client-aliases';

/** Swagger UI at /api/docs and the OpenAPI document at /api/docs-json. */
export function setUpApiDocs(app: INestApplication): void {
  const document = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('PresQT API v1')
      .setDescription(
        'List, search, download, upload and transfer research resources between repositories (targets).',
      )
      .setVersion('1')
      .addTag(
        CLIENT_ALIASES_TAG,
        'Our services under the names, paths and shapes the PresQT web client (presqt-ui) uses: eaasi is ' +
          'emulation, fairshake is assessment, keyword_enhancement (in the catalogue only) is presqt.',
      )
      .build(),
  );
  SwaggerModule.setup('api/docs', app, document, { jsonDocumentUrl: 'api/docs-json' });
}
