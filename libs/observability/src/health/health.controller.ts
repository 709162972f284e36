import { Controller, Get, HttpStatus, Res, ServiceUnavailableException } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { HealthCheck, HealthCheckService, type HealthCheckResult } from '@nestjs/terminus';
import type { Response } from 'express';
import { Readiness } from './readiness';

/**
 * Liveness (the process answers) and readiness (it can do its work) for orchestrators. Not part of the
 * PresQT API: left out of its documentation.
 */
@ApiExcludeController()
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly readiness: Readiness,
  ) {}

  @Get('live')
  @HealthCheck()
  live(): Promise<HealthCheckResult> {
    return this.health.check([]);
  }

  /** 503 with which check failed, as JSON with an `error` message like every other error body. */
  @Get('ready')
  @HealthCheck()
  async ready(@Res({ passthrough: true }) response: Response): Promise<object> {
    try {
      return await this.health.check([
        () => this.readiness.redisAnswers(),
        () => this.readiness.dataDirWritable(),
        () => this.readiness.targetsLoaded(),
      ]);
    } catch (error) {
      if (!(error instanceof ServiceUnavailableException)) throw error;
      const result = error.getResponse() as HealthCheckResult;
      response.status(HttpStatus.SERVICE_UNAVAILABLE);
      const failing = Object.keys(result.error ?? {}).join(', ');
      return { error: `not ready: ${failing}`, status: result.status, details: result.details };
    }
  }
}
