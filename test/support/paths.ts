// Where the built `svc` lives, for the tests that run it as users do (whatever directory vitest starts in).
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const SERVER_JS = join(ROOT, 'dist/src/server.js');
