export {
  bfclClassNames,
  bfclDocFiles,
  isBfclClassName,
  type BfclClassName,
} from './api/bfcl-class-names';
export {
  BfclRealm,
  BfclScenarioFields,
  type BfclRuntimeData,
} from './api/bfcl-realm';
export {
  BfclApi,
  type BfclClassDefinition,
  type BfclMethod,
  type BfclMethodTable,
} from './api/bfcl-api';
export { bfclClassRegistry } from './api/registry';
export {
  BfclSession,
  bfclBlockedNames,
  renderResult,
  softErrorText,
  type BfclExecution,
  type BfclExecutionStatus,
  type BfclSessionOptions,
} from './session/bfcl-session';
export {
  comparableState,
  diffComparable,
  toComparableValue,
  type BfclComparable,
  type StateDifference,
} from './state/comparable-state';
export {
  bfclCategories,
  categoryOf,
  loadBfclData,
  resolveBfclDataDir,
  type BfclCategory,
  type BfclDataset,
  type BfclEntry,
  type BfclSplit,
} from './data/load-bfcl-data';
export {
  describeDifference,
  parseGoldenLines,
  replayGoldenLine,
  type ReplayDifference,
  type ReplayEntryResult,
} from './replay/replay-golden';
export {
  bfclSessionSpec,
  createBfclBackend,
  createBfclToolSession,
} from './task/bfcl-backend';
export { bfclEntryToTask, bfclTasks } from './task/entry-to-task';
export {
  toolDocFromSpec,
  type BfclToolSpec,
  type BfclToolSpecs,
} from './api/tool-spec';
export {
  travelCityAirports,
  travelExchangeRates,
  travelRoutes,
  type TravelExchangeRate,
  type TravelRoute,
} from './api/travel-tables';
export { vehicleCityZipcodes } from './api/vehicle-routes';
