import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { closeOnSignals, loadSettingsOrExit, useStructuredLogs } from '@app/bootstrap';
import { httpMetrics } from '@app/observability';
import { ADMIN_QUEUES_ROUTE } from './admin/admin.module';
import { ApiModule } from './api.module';
import { setUpApiDocs } from './api-docs';
import { applyBrowserAccess } from './common/browser-access';
import { applyProtocolEdges } from './common/http-edges';

async function bootstrap(): Promise<void> {
  const { config, targets } = loadSettingsOrExit('api');
  const app = await NestFactory.create<NestExpressApplication>(ApiModule.register(config, targets), {
    bufferLogs: true,
  });
  const logger = useStructuredLogs(app);
  closeOnSignals(app, logger, 'API');
  app.use(httpMetrics([ADMIN_QUEUES_ROUTE]));
  applyBrowserAccess(app, config);
  setUpApiDocs(app);
  applyProtocolEdges(app.getHttpServer(), config.requestLimits);
  await app.listen(config.port, config.host);
  logger.log(`API listening on http://${config.host}:${config.port} with ${targets.targets.length} targets`);
}

void bootstrap();
