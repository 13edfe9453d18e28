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
export {
  confirmationTaskPrefix,
  generateConfirmationTasks,
} from './confirmation-suite';
export { confirmationSuiteSeed } from './seeds';
export { taskFamilies } from './families';
export {
  generateTasks,
  generateTasksOptionsSchema,
  generatedCategories,
  warmupCategories,
  type GenerateTasksOptions,
} from './generate-tasks';
export { generatorSplits, type GeneratorSplit } from './generator-splits';
export {
  createTaskRedrawer,
  isGeneratedTaskId,
  type RedrawnTask,
} from './redraw-tasks';
export type { Intent, Said } from './phrasing';
export type {
  FamilyContext,
  FamilyDifficulty,
  FamilyPool,
  TaskDraft,
  TaskFamily,
} from './task-family';
