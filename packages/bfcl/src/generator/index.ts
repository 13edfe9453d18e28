export {
  buildTask,
  createGeneratorRuntime,
  taskGeneratorId,
  type BuildTaskOptions,
  type TaskVariant,
} from './build-task';
export {
  checkGeneratedTask,
  type GeneratedTaskProblem,
} from './check-generated-task';
export { taskFamilies } from './families';
export {
  generateTasks,
  generateTasksOptionsSchema,
  generatedCategories,
  warmupCategories,
  type GenerateTasksOptions,
} from './generate-tasks';
export {
  bucketAllowed,
  contentBucket,
  contentBucketCount,
  familiesForSplit,
  generatorSplits,
  phrasingPolicyFor,
  splitBuckets,
  supportsLongContext,
  type GeneratorSplit,
} from './generator-splits';
export {
  defineIntent,
  heldOutTemplateId,
  phrasingPattern,
  renderPhrasing,
  templateIdOf,
  type Intent,
  type PhrasingPolicy,
  type Said,
} from './phrasing';
export type {
  DraftTurn,
  FamilyContext,
  FamilyDifficulty,
  FamilyPool,
  MissingParameter,
  StateScale,
  TaskDraft,
  TaskDraftBuilder,
  TaskFamily,
} from './task-family';
