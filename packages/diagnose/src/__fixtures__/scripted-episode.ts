import type { BfclDataset } from '@seal/bfcl';
import { bfclTasks, createBfclBackend } from '@seal/bfcl';
import { createEpisode, type ProtocolName } from '@seal/env';
import type { EpisodeRecord, Task, VerifierV1Result } from '@seal/spec';
import { createBfclVerifier } from '@seal/verifier';

/** What the scripted model says at each turn: its messages, in order. */
export type TurnScript = readonly string[];

/** A reply without calls: ends the turn in every protocol used here. */
export const reply = 'I have finished this part of the task.';

/** One step of calls in BFCL's prompting format (`bfcl-python`). */
export function calls(...callTexts: string[]): string {
  return `[${callTexts.join(', ')}]`;
}

/** The ground truth as a script: one step with the turn's calls (if any), then a reply. */
export function groundTruthScript(task: Task): TurnScript[] {
  return task.groundTruth.map((turn) => (turn.length > 0 ? [calls(...turn), reply] : [reply]));
}

/**
 * Runs a scripted episode of `taskId` through `@seal/env` with the real BFCL
 * backend, verifies it with the real verifier, and returns both.
 */
export function runScripted({
  dataset,
  taskId,
  script,
  protocol = 'bfcl-python',
  maxModelCalls = 40,
}: {
  dataset: BfclDataset;
  taskId: string;
  /** Per turn; default: the ground truth. Turns beyond the script end the episode there. */
  script?: (task: Task) => TurnScript[];
  protocol?: ProtocolName;
  maxModelCalls?: number;
}): { task: Task; record: EpisodeRecord; verification: VerifierV1Result } {
  const [task] = bfclTasks({ dataset, ids: [taskId] });
  if (!task) throw new Error(`no task ${taskId}`);
  const episode = createEpisode({
    task,
    backend: createBfclBackend({ runtime: dataset.runtime }),
    protocol,
    episodeId: `${taskId}:scripted`,
    limits: { maxModelCalls },
  });
  episode.reset();
  const turns = (script ?? groundTruthScript)(task);
  outer: for (const turn of turns) {
    for (const message of turn) {
      if (episode.done) break outer;
      episode.step(message);
    }
  }
  if (!episode.done) episode.abort();
  const record = episode.record();
  const verification = createBfclVerifier({ runtime: dataset.runtime }).verifySync({ task, record });
  return { task, record, verification };
}
