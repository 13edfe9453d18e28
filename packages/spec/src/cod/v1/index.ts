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
