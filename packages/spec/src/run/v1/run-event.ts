import * as z from 'zod';
import { stageEventSchema, validationEventSchema } from './curriculum-events';
import { evalEventSchema } from './eval-event';
import { rollbackEventSchema } from './rollback-event';
import { trainStepEventSchema } from './train-step-event';

/** One line of a run's `events.jsonl`, by `type`. */
export const runEventSchema = z.discriminatedUnion('type', [
  trainStepEventSchema,
  evalEventSchema,
  rollbackEventSchema,
  stageEventSchema,
  validationEventSchema,
]);

/** See {@link runEventSchema}. */
export type RunEvent = z.infer<typeof runEventSchema>;
