import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { closeOnSignals, loadSettingsOrExit, useStructuredLogs } from '@app/bootstrap';
import { ProcessSettings } from '@app/config';
import { httpMetrics, useRequestLogging } from '@app/observability';
import { ADMIN_QUEUES_ROUTE } from './admin/admin.module';
import { ApiModule } from './api.module';
import { API_SETTINGS } from './api.settings';
import { setUpApiDocs } from './api-docs';
import { applyBrowserAccess } from './common/browser-access';
import { applyProtocolEdges } from './common/http-edges';
import { HttpSettings } from './common/http.settings';
import { RequestLimits } from './common/request-limits.settings';

async function bootstrap(): Promise<void> {
  const { settings, targets } = loadSettingsOrExit('api', API_SETTINGS);
  const http = settings.get(HttpSettings);
  const { host } = settings.get(ProcessSettings);
  const app = await NestFactory.create<NestExpressApplication>(ApiModule.register(settings, targets), {
    bufferLogs: true,
    // mounted below with the request logging (useRequestLogging)
    bodyParser: false,
  });
  const logger = useStructuredLogs(app);
  closeOnSignals(app, logger, 'API');
  app.use(httpMetrics([ADMIN_QUEUES_ROUTE]));
  applyBrowserAccess(app, http);
  setUpApiDocs(app);
  useRequestLogging(app);
  applyProtocolEdges(app.getHttpServer(), settings.get(RequestLimits));
  await app.listen(http.port, host);
  logger.log(`API listening on http://${host}:${http.port} with ${targets.targets.length} targets`);
}

void bootstrap();
