import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { closeOnSignals, loadSettingsOrExit } from '@app/bootstrap';
import { QueueReadiness } from './queue-readiness';
import { WorkerModule } from './worker.module';

async function bootstrap(): Promise<void> {
  const { config, targets, logger } = loadSettingsOrExit('worker');
  const app = await NestFactory.createApplicationContext(WorkerModule.register(config, targets), { logger });
  // Closing the queues lets running jobs reach a safe point first.
  closeOnSignals(app, logger, 'Worker');
  const queues = await app.get(QueueReadiness).waitUntilReady();
  logger.log(
    `Worker ready: consuming queues ${queues.join(', ')} at ${config.redisUrl.replace(/\/\/[^@]*@/, '//')}`,
  );
}

void bootstrap();
