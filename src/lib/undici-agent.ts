// undici's own entry loads all of undici (fetch, WebSocket, EventSource, caches, mocks, interceptors) where svc
// needs only its Agent, the request method undici gives every dispatcher, and its connector: the rest was the
// largest part of the module loading a short crawl pays for. Its entry's one wiring step is repeated here, so
// the Agent answers request() as it does when the whole of undici is loaded (both ways share the same modules).
import { createRequire } from 'node:module';
import type * as Undici from 'undici';

const require = createRequire(import.meta.url);

const Dispatcher = require('undici/lib/dispatcher/dispatcher.js') as typeof Undici.Dispatcher;
Object.assign(Dispatcher.prototype, require('undici/lib/api/index.js') as object);

export const Agent = require('undici/lib/dispatcher/agent.js') as typeof Undici.Agent;
export type Agent = Undici.Agent;

export const buildConnector = require('undici/lib/core/connect.js') as typeof Undici.buildConnector;
// The connector's option and function types, under the names undici gives them.
export declare namespace buildConnector {
  type BuildOptions = Undici.buildConnector.BuildOptions;
  type connector = Undici.buildConnector.connector;
}
