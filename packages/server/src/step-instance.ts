import { toolErrorText } from '@seal/env';
import {
  SealError,
  envServiceStepMessageSchema,
  envServiceStepParamsSchema,
  type EnvServiceRequest,
  type EnvServiceStepData,
  type EpisodeEvent,
  type SealWarning,
  type SyncVerifierV1,
} from '@seal/spec';
import { instanceAccuracy, type ServiceInstance } from './service-instances';
import {
  conversationCompleted,
  fromStepMessage,
  parseRequestPart,
  toWireMessage,
} from './wire';

/**
 * `/step`: feeds the raw model text (or `tool_calls`) to the instance's
 * episode and answers SEAL's `{state, reward, is_terminated, info}`. The
 * reward is the official accuracy once the episode ends (0 before, and 0
 * when a parse error ended it under `terminate_on_parse_error`). Throws
 * INVALID_ARGUMENT for a malformed message or params, INVALID_STATE for a
 * finished episode.
 */
export function stepInstance({
  request,
  instance,
  verifier,
}: {
  request: EnvServiceRequest;
  instance: ServiceInstance;
  verifier: SyncVerifierV1;
}): EnvServiceStepData {
  const message = parseRequestPart({
    schema: envServiceStepMessageSchema,
    value: request.messages,
    field: 'messages',
  });
  const rawParams = request.params ?? {};
  const stepParams = parseRequestPart({
    schema: envServiceStepParamsSchema,
    value: rawParams,
    field: 'params',
  });
  const warnings = ignoredStepParams(rawParams);
  if (instance.terminated || instance.episode.done) {
    throw new SealError({
      code: 'INVALID_STATE',
      message: `instance ${instance.id} has terminated; call /evaluate or /release`,
      details: { instanceId: instance.id },
    });
  }
  const { episode, params } = instance;
  const turnBefore = episode.turn;
  const usage = stepParams.usage;
  const result = episode.step(fromStepMessage(message), {
    ...(usage?.prompt_tokens == null
      ? {}
      : { promptTokens: usage.prompt_tokens }),
    ...(usage?.completion_tokens == null
      ? {}
      : { completionTokens: usage.completion_tokens }),
  });
  instance.version++;

  const { fields, parseError } = stepErrorInfo(result.events);
  const info: Record<string, unknown> = { turn: result.turn, ...fields };
  let state = result.observation.map(toWireMessage);
  let terminated = result.done;
  let endReason = result.events.find(
    (event) => event.type === 'episode-end',
  )?.reason;
  let forceZeroReward = false;
  if (!terminated && parseError && params.terminateOnParseError) {
    episode.abort();
    terminated = true;
    endReason = 'aborted';
    forceZeroReward = true;
    state = [{ role: 'user', content: conversationCompleted, tool_calls: [] }];
    Object.assign(info, {
      bfcl_terminated_on_parse_error: true,
      bfcl_force_zero_reward: true,
    });
  } else if (!terminated && params.isOpenQuery && result.turn !== turnBefore) {
    episode.abort();
    terminated = true;
    endReason = 'aborted';
  }
  if (endReason === 'completed')
    state = [{ role: 'user', content: conversationCompleted, tool_calls: [] }];
  if (terminated) {
    instance.terminated = true;
    instance.version++;
    info['end_reason'] = endReason;
  }
  if (warnings.length > 0) info['warnings'] = warnings;
  return {
    state,
    reward:
      terminated && !forceZeroReward
        ? instanceAccuracy({ instance, verifier })
        : 0,
    is_terminated: terminated,
    info,
  };
}

/** A warning for every `/step` param other than `usage` (the only one read). */
function ignoredStepParams(params: Record<string, unknown>): SealWarning[] {
  return Object.keys(params)
    .filter((key) => key !== 'usage')
    .map((key) => ({
      type: 'unsupported',
      setting: `params.${key}`,
      details: '/step reads only params.usage; ignored',
    }));
}

/**
 * SEAL's error fields of a step's `info` (`bfcl_error_type`,
 * `static_fission_retryable`, `static_fission_reason`), from the step's
 * events: the last parse error, rejected call or tool error wins. Also says
 * whether the reply failed to parse.
 */
function stepErrorInfo(events: readonly EpisodeEvent[]): {
  fields: Record<string, unknown>;
  parseError: boolean;
} {
  const fields: Record<string, unknown> = {};
  let parseError = false;
  for (const event of events) {
    if (event.type === 'parse-error') {
      parseError = true;
      Object.assign(fields, {
        bfcl_error_type: 'parse_error',
        static_fission_retryable: true,
        static_fission_reason: event.message,
      });
    } else if (event.type === 'call-rejected') {
      Object.assign(fields, {
        bfcl_error_type: 'invalid_tool_call',
        static_fission_retryable: true,
        static_fission_reason: event.message,
      });
    } else if (event.type === 'call-executed') {
      const error = event.error ?? toolErrorText(event.result);
      if (error !== undefined) {
        Object.assign(fields, {
          bfcl_error_type: 'tool_error',
          static_fission_retryable: true,
          static_fission_reason: error,
        });
      }
    }
  }
  return { fields, parseError };
}
