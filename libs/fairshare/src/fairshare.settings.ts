import { setting, Settings } from '@app/config';

/** The FAIR Evaluator that FAIRshare evaluations run on. */
export class FairshareSettings extends Settings('FAIRshare evaluations', {
  evaluatorUrl: setting.url('FAIRSHARE_EVALUATOR_URL', {
    example: 'https://w3id.org/FAIR_Evaluator/collections/16/evaluate',
    default: 'https://w3id.org/FAIR_Evaluator/collections/16/evaluate',
    doc: 'the FAIR Evaluator collection whose tests FAIRshare evaluations run (its `evaluate` URL)',
  }),
  evaluatorTimeoutMs: setting.int('FAIRSHARE_EVALUATOR_TIMEOUT_MS', {
    min: 100,
    max: 3_600_000,
    default: 300_000,
    doc: 'the longest one FAIRshare evaluation may take (the Evaluator can take minutes)',
  }),
}) {}
