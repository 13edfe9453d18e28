export {
  PyDict,
  PyEllipsis,
  PyObject,
  PySet,
  PyTuple,
  isPyFloat,
  isPyInt,
  isPyKey,
  isPyList,
  isPyNumber,
  pyDeepCopy,
  pyTruthy,
  pyTypeName,
  type PyKey,
  type PyValue,
} from './py-value';
export { PyException } from './py-exception';
export { floatRepr, pyRepr, pyStr, stringRepr } from './py-repr';
export {
  PyJsonSyntaxError,
  compareCodePoints,
  fromJsonValue,
  parsePyJson,
  pyJsonDumps,
  pyTuple,
  toJsonValue,
  type PyJsonDumpsOptions,
} from './py-json';
export { assertHashable, pyCompare, pyContains, pyEquals, pySorted } from './py-compare';
export { formatFixed, pyRound, pyRoundToInt } from './py-format';
export { PyRandom } from './py-random';
export {
  formatCall,
  parseCallString,
  type ParseCallError,
  type ParseCallErrorKind,
  type ParseCallLimits,
  type ParseCallResult,
  type ParsedCall,
} from './parse-call';
export { bindArguments, type PyParameter, type PySignature } from './bind-arguments';
export {
  expectStr,
  noAttribute,
  pyAbs,
  pyAdd,
  pyDictGet,
  pyFloat,
  pyFloorDiv,
  pyFormatValue,
  pyGe,
  pyGetItem,
  pyGt,
  pyIndexOf,
  pyInt,
  pyIter,
  pyLe,
  pyLen,
  pyListRemove,
  pyLower,
  pyLt,
  pyMod,
  pyMul,
  pyNeg,
  pyPow,
  pySplitLines,
  pySplitWhitespace,
  pySub,
  pyTrueDiv,
  pyUpper,
} from './py-ops';
