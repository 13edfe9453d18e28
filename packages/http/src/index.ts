export { readBody, type ReadBodyResult } from './read-body';
