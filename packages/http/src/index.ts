export { HttpError, type HttpErrorOptions } from './http-error';
export { listen, type ListeningServer } from './listen';
export { readBody, type ReadBodyResult } from './read-body';
export { sendJson } from './send-json';
