// STUB — owned by the ability-layer work (issue 5). {rest_root}/abilities/v1/… routes.
import type { App } from '../app.js';
import type { HttpHandler } from '../http/io.js';
import type { Host } from './host.js';

export function createAbilityRoutesHandler(_app: App, _host: Host): HttpHandler {
  return async () => false;
}
