import { Module } from '@nestjs/common';
import { FairshareEvaluator } from './fairshare-evaluator';

/** The FAIR Evaluator client, for the API's evaluator endpoint and the worker's transfers alike. */
@Module({ providers: [FairshareEvaluator], exports: [FairshareEvaluator] })
export class FairshareModule {}
