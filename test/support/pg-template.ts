// vitest globalSetup: where a PostgreSQL server is installed, initdb once for the run (the clusters of the tests of
// restarts and outages start from a copy of it) and start the run's one cluster, whose template database holds the
// schemas the tests' stores use most, migrated: a test file's fresh database is a copy of it (CREATE DATABASE …
// TEMPLATE), not a migration from empty. Both removed when the run ends. Listed by more than one project, it runs
// once: the first sets the environment the others find.
import { projectSchema } from '../../src/store/pg/store.js';
import { OTHER_TOKEN, TOKEN } from './app.js';
import { CLUSTER_ENV, makeTemplate, startRunCluster, TEMPLATE_ENV } from './postgres.js';
import { KIT_TOKEN } from './stores.js';

/** '' the default schema (pgFixture's PgSql), then the projects of the stores tests open most. */
const SCHEMAS = ['', ...[KIT_TOKEN, TOKEN, OTHER_TOKEN].map(projectSchema)];

export default async function setup(): Promise<(() => void) | undefined> {
  if (process.env[TEMPLATE_ENV]) return undefined;
  const template = makeTemplate();
  if (!template) return undefined;
  process.env[TEMPLATE_ENV] = template.dir;
  try {
    const { cluster, info } = await startRunCluster(SCHEMAS);
    process.env[CLUSTER_ENV] = info;
    return () => {
      try {
        cluster.stop();
      } finally {
        template.remove();
      }
    };
  } catch (err) {
    template.remove();
    throw err;
  }
}
