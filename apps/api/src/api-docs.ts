import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';

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
      .build(),
  );
  SwaggerModule.setup('api/docs', app, document, { jsonDocumentUrl: 'api/docs-json' });
}
