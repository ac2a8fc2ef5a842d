// STUB — owned by the REST work (issue 4). The /v1 REST facade over app.backend.
import type { App } from '../../app.js';
import type { HttpHandler } from '../../http/io.js';

export function createV1Handler(_app: App): HttpHandler {
  return async () => false;
}
