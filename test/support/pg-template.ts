// vitest globalSetup: initdb once for the run where a PostgreSQL server is installed; each test file's throw-away
// cluster (startPostgres) starts from a copy of it. Removed when the run ends.
import { makeTemplate, TEMPLATE_ENV } from './postgres.js';

export default function setup(): (() => void) | undefined {
  const template = makeTemplate();
  if (!template) return undefined;
  process.env[TEMPLATE_ENV] = template.dir;
  return () => template.remove();
}
