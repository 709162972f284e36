import 'reflect-metadata';
import type { AddressInfo } from 'node:net';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { closeOnSignals, loadSettingsOrExit, useStructuredLogs } from '@app/bootstrap';
import { ProcessSettings } from '@app/config';
import { useRequestLogging } from '@app/observability';
import { RedisConnections } from '@app/jobs';
import { QueueReadiness } from './queue-readiness';
import { WorkerModule } from './worker.module';
import { WORKER_SETTINGS, WorkerSettings } from './worker.settings';

async function bootstrap(): Promise<void> {
  const { settings, targets } = loadSettingsOrExit('worker', WORKER_SETTINGS);
  const { host } = settings.get(ProcessSettings);
  // an HTTP application only for its health and metrics endpoints; the work comes from the queues
  const app = await NestFactory.create<NestExpressApplication>(WorkerModule.register(settings, targets), {
    bufferLogs: true,
    // mounted below with the request logging (useRequestLogging)
    bodyParser: false,
  });
  const logger = useStructuredLogs(app);
  useRequestLogging(app);
  // Closing the queues lets running jobs reach a safe point first.
  closeOnSignals(app, logger, 'Worker');
  await app.listen(settings.get(WorkerSettings).healthPort, host);
  const { port } = app.getHttpServer().address() as AddressInfo;
  logger.log(`Worker health and metrics on http://${host}:${port}`);
  const queues = await app.get(QueueReadiness).waitUntilReady();
  logger.log(
    `Worker ready: consuming queues ${queues.join(', ')} at ${app.get(RedisConnections).describe()}`,
  );
}

void bootstrap();
