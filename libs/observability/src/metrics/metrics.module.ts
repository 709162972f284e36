import { Module } from '@nestjs/common';
import { collectDefaultMetrics } from 'prom-client';
import { MetricsController } from './metrics.controller';
import { QueueMetrics } from './queue-metrics';

collectDefaultMetrics();

/** /metrics: the process's own metrics, the jobs', the upstreams' and the queues' depth. */
@Module({ controllers: [MetricsController], providers: [QueueMetrics] })
export class MetricsModule {}
