export { codRunConfigSchema, type CodRunConfig } from './cod-run-config';
export { codTrainStateSchema, type CodTrainState } from './cod-train-state';
export {
  packRunAdvantagesSchema,
  packRunRecordSchema,
  packRunSolveSchema,
  packRunUpdateSchema,
  packStrategySchema,
  type PackRunAdvantages,
  type PackRunRecord,
  type PackRunSolve,
  type PackRunUpdate,
  type PackStrategyName,
} from './pack-run-record';
