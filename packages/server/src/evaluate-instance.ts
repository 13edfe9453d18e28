import { diagnoseEpisode, diagnoseTrajectory } from '@seal/diagnose';
import type {
  EnvServiceDiagnoseData,
  EnvServiceEvaluation,
  EnvServiceRequest,
  SyncVerifierV1,
} from '@seal/spec';
import * as z from 'zod';
import { toSealEvaluation } from './seal-evaluation';
import {
  instanceAccuracy,
  verifyInstance,
  type ServiceInstance,
} from './service-instances';
import { parseRequestPart } from './wire';

const evaluateParamsSchema = z.object({ sparse: z.boolean().nullish() });
const diagnoseParamsSchema = z.object({ reward: z.number().nullish() });

/**
 * `/evaluate`: with `params.sparse` the official accuracy (1 or 0), else
 * SEAL's evaluation dict (verdict, per-turn progress and tags, trajectory
 * statistics). Verification is cached until the next step.
 */
export function evaluateInstance({
  request,
  instance,
  verifier,
}: {
  request: EnvServiceRequest;
  instance: ServiceInstance;
  verifier: SyncVerifierV1;
}): number | EnvServiceEvaluation {
  const params = parseRequestPart({
    schema: evaluateParamsSchema,
    value: request.params ?? {},
    field: 'params',
  });
  if (params.sparse) return instanceAccuracy({ instance, verifier });
  const { record, result } = verifyInstance({ instance, verifier });
  return toSealEvaluation({
    record,
    result,
    trajectory: diagnoseTrajectory(record),
    modelName: instance.params.modelName,
  });
}

/**
 * `/diagnose` (ours): SEAL's per-turn tags, the finer tags of the event
 * stream and the full diagnosis record; `params.reward` overrides the
 * episode's reward in the diagnosis.
 */
export function diagnoseInstance({
  request,
  instance,
  verifier,
}: {
  request: EnvServiceRequest;
  instance: ServiceInstance;
  verifier: SyncVerifierV1;
}): EnvServiceDiagnoseData {
  const params = parseRequestPart({
    schema: diagnoseParamsSchema,
    value: request.params ?? {},
    field: 'params',
  });
  const { record, result } = verifyInstance({ instance, verifier });
  const diagnosis = diagnoseEpisode({
    record,
    verification: result,
    ...(params.reward == null ? {} : { reward: params.reward }),
  });
  return {
    failure_tags: diagnosis.turns.map((turn) => turn.tag),
    fine_tags: diagnosis.turns.map((turn) => [...turn.fineTags]),
    dominant_tag: diagnosis.dominantTag,
    reward: diagnosis.reward,
    success: diagnosis.success,
    diagnosis,
  };
}
