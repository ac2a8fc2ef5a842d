// The same guarantees on PostgreSQL, where two `svc serve` processes share nothing but the database: a crawl task
// started on one is followed to its end on the other, and a delete confirmation asked by one is accepted by the
// other (the signing key is a row of the database, not a file).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeFixture, spawnServe, type Fixture, type McpServe } from '../support/mcp.js';
import { rawClient } from '../support/mcp-raw.js';
import { pgFixture, skip, type PgFixture } from '../support/postgres.js';
import { until } from '../support/wait.js';

const withTasks = { capabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } } };
const FORM = { capabilities: { elicitation: { form: {} } } };

describe.skipIf(skip)('tasks and confirmations on PostgreSQL, across two processes', () => {
  let pg: PgFixture;
  let fx: Fixture;
  let first: McpServe;
  let second: McpServe;

  beforeAll(async () => {
    pg = pgFixture();
    fx = await makeFixture({ databaseUrl: pg.cluster.connectionString(await pg.createDatabase()) });
    [first, second] = await Promise.all([spawnServe(fx), spawnServe(fx)]);
  }, 60_000);

  afterAll(async () => {
    await Promise.all([first?.stop(), second?.stop()]);
    await fx?.cleanup();
    await pg?.close();
  });

  it('follows a crawl task started on one process to completed on the other', async () => {
    const started = await rawClient(first.mcpUrl, fx.tokens.admin)(
      'tools/call',
      { name: 'svc-full-crawl', arguments: {} },
      withTasks,
    );
    expect(started.body.result).toMatchObject({ resultType: 'task', status: 'working' });
    const taskId = started.body.result!.taskId as string;
    const onSecond = rawClient(second.mcpUrl, fx.tokens.admin);
    const done = await until(
      'the task to end',
      async () => {
        const r = await onSecond('tasks/get', { taskId }, withTasks);
        return r.body.result?.status === 'working' ? null : r.body.result;
      },
      60_000,
    );
    expect(done).toMatchObject({ status: 'completed', result: { structuredContent: { status: 'completed' } } });
  });

  it('deletes on one process what the other asked to confirm', async () => {
    const url = fx.site.url('/about');
    const asked = await rawClient(first.mcpUrl, fx.tokens.admin)(
      'tools/call',
      { name: 'svc-delete-pages', arguments: { urls: [url] } },
      FORM,
    );
    expect(asked.body.result).toMatchObject({ resultType: 'input_required' });
    const accepted = await rawClient(second.mcpUrl, fx.tokens.admin)(
      'tools/call',
      {
        name: 'svc-delete-pages',
        arguments: { urls: [url] },
        requestState: asked.body.result!.requestState,
        inputResponses: { confirm: { action: 'accept', content: { confirm: true } } },
      },
      FORM,
    );
    expect(accepted.body.result).toMatchObject({ structuredContent: { deleted: [url], not_found: [] } });
  });
});
