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
export { floatRepr, intRepr, pyRepr, pyStr, stringRepr } from './py-repr';
export { PyComplex } from './py-complex';
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
  PyRawCall,
  formatCall,
  parseCallSequence,
  parseCallString,
  type ParseCallOptions,
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
  pyIntToFloat,
  pyIntTrueDiv,
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
