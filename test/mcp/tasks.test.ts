// Crawls as tasks over /mcp (the io.modelcontextprotocol/tasks extension of 2026-07-28), on two real `svc serve`
// processes sharing one SQLite data directory: a crawl started on one is followed to its end on the other, one is
// cancelled mid-crawl, another user's and an unknown task are not found, and a request without the extension gets
// the plain crawl record as before. Raw JSON-RPC: the SDK's v2 client has no tasks API (a task result is no
// tools/call result it knows).
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeFixture, spawnServe, type Fixture, type McpServe } from '../support/mcp.js';
import { envelopeWith, legacyInitialize, rawClient, type RawAnswer } from '../support/mcp-raw.js';
import { SERVER_JS } from '../support/paths.js';
import { until } from '../support/wait.js';

const TASKS = 'io.modelcontextprotocol/tasks';
const withTasks = { capabilities: { extensions: { [TASKS]: {} } } };

let fx: Fixture;
let first: McpServe;
let second: McpServe;

beforeAll(async () => {
  // Slow pages: a crawl lasts several of the crawl owner's heartbeats (0.5 s here, 2 s unless set), so a cancel from the
  // other process lands mid-crawl.
  fx = await makeFixture({ siteDelayMs: 300 });
  const heartbeat = { SVC_CRAWL_HEARTBEAT_MS: '500' };
  [first, second] = await Promise.all([spawnServe(fx, heartbeat), spawnServe(fx, heartbeat)]);
});

afterAll(async () => {
  await Promise.all([first?.stop(), second?.stop()]);
  await fx?.cleanup();
});

/** Polls tasks/get (on `rpc`'s server) until the task leaves `working`. */
async function ended(rpc: ReturnType<typeof rawClient>, taskId: string): Promise<Record<string, unknown>> {
  return until(
    `task ${taskId} to end`,
    async () => {
      const r = await rpc('tasks/get', { taskId }, withTasks);
      return r.body.result?.status === 'working' ? null : r.body.result;
    },
    60_000,
  );
}

const crawlOf = (r: RawAnswer) => (r.body.result?.structuredContent ?? {}) as Record<string, unknown>;

describe('crawls as tasks', () => {
  it('advertises the extension in server/discover, and not to a 2025 client', async () => {
    const r = await rawClient(first.mcpUrl, fx.tokens.admin)('server/discover', {});
    expect(r.body.result?.capabilities).toMatchObject({ extensions: { [TASKS]: {} } });
    const init = { result: (await legacyInitialize(first.mcpUrl, '2025-11-25')) as { capabilities: object } };
    expect(init.result.capabilities).toHaveProperty('tools');
    expect(init.result.capabilities).not.toHaveProperty('extensions');
  });

  it('starts a crawl as a task on one process and follows it to completed on another, with the plain result', async () => {
    const onFirst = rawClient(first.mcpUrl, fx.tokens.admin);
    const onSecond = rawClient(second.mcpUrl, fx.tokens.admin);
    const started = await onFirst('tools/call', { name: 'svc-full-crawl', arguments: {} }, withTasks);
    expect(started.status).toBe(200);
    const task = started.body.result!;
    expect(task).toMatchObject({
      resultType: 'task',
      taskId: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/),
      status: 'working',
      pollIntervalMs: expect.any(Number),
      ttlMs: expect.any(Number),
      createdAt: expect.any(String),
      lastUpdatedAt: expect.any(String),
    });
    expect(task).not.toHaveProperty('result');
    expect(String(task.lastUpdatedAt) >= String(task.createdAt)).toBe(true);
    const taskId = task.taskId as string;

    const working = await onSecond('tasks/get', { taskId }, withTasks);
    expect(working.body, JSON.stringify(working.body)).toHaveProperty('result');
    expect(working.body.result).toMatchObject({ resultType: 'complete', taskId, status: 'working' });
    expect(working.body.result!.statusMessage).toMatch(
      /^crawl \d+ (is queued|is running: \d+ pages?, \d+ links? \(\d+ broken\) so far)$/,
    );

    const done = await ended(onSecond, taskId);
    expect(done.status).toBe('completed');
    expect(done.statusMessage).toMatch(
      /^crawl \d+ completed: \d+ pages, \d+ links \([1-9]\d* broken\), \d+ problem links? \(\d+ occurrences?\)$/,
    );
    const result = done.result as { structuredContent: Record<string, unknown>; content: { text: string }[] };
    expect(result.structuredContent).toMatchObject({ status: 'completed', mode: 'full' });
    expect(JSON.parse(result.content[0]!.text)).toEqual(result.structuredContent);

    // Without the extension the same tool answers the crawl record itself, in the same form as the task's result.
    const plain = await onSecond('tools/call', { name: 'svc-full-crawl', arguments: {} });
    expect(plain.body.result).toMatchObject({ resultType: 'complete' });
    expect(plain.body.result).not.toHaveProperty('taskId');
    expect(Object.keys(crawlOf(plain)).sort()).toEqual(Object.keys(result.structuredContent).sort());
    const last = await onSecond('tools/call', {
      name: 'svc-get-crawl',
      arguments: { id: crawlOf(plain).id, wait_seconds: 60 },
    });
    expect(crawlOf(last).status).toBe('completed');
  });

  it('cancels a task mid-crawl: the crawl ends stopped, the task cancelled, a second cancel is the same ack', async () => {
    const rpc = rawClient(first.mcpUrl, fx.tokens.admin);
    const started = await rpc('tools/call', { name: 'svc-full-crawl', arguments: {} }, withTasks);
    const taskId = started.body.result!.taskId as string;
    const cancel = await rawClient(second.mcpUrl, fx.tokens.admin)('tasks/cancel', { taskId }, withTasks);
    expect(cancel.body, JSON.stringify(cancel.body)).toMatchObject({ result: expect.anything() });
    expect(cancel.body.result).toEqual({ resultType: 'complete', _meta: expect.any(Object) });
    const done = await ended(rpc, taskId);
    expect(done.status).toBe('cancelled');
    expect(done).not.toHaveProperty('result');
    const crawlId = Number(/crawl (\d+)/.exec(done.statusMessage as string)![1]);
    const record = await rpc('tools/call', { name: 'svc-get-crawl', arguments: { id: crawlId, wait_seconds: 30 } });
    expect(crawlOf(record).status).toBe('stopped');
    expect((await ended(rpc, taskId)).statusMessage).toMatch(/^cancelled: crawl \d+ ended \(stopped\)/);
    expect((await rpc('tasks/cancel', { taskId }, withTasks)).body.result).toMatchObject({ resultType: 'complete' });
  });

  it("answers another user's task and an unknown id as not found, and the task methods without the extension not at all", async () => {
    const rpc = rawClient(first.mcpUrl, fx.tokens.admin);
    const started = await rpc(
      'tools/call',
      { name: 'svc-manual-crawl', arguments: { urls: [fx.site.url('/')] } },
      withTasks,
    );
    const taskId = started.body.result!.taskId as string;
    expect(taskId, JSON.stringify(started.body)).toBeTruthy();
    for (const token of [fx.tokens.sub, fx.tokens.alice]) {
      for (const method of ['tasks/get', 'tasks/cancel']) {
        const r = await rpc(method, { taskId }, { ...withTasks, token });
        expect(r.status, method).toBe(200);
        expect(r.body.error, method).toMatchObject({
          code: -32602,
          message: expect.stringMatching(/no such task of yours/),
        });
      }
    }
    const unknown = await rpc('tasks/get', { taskId: 'A'.repeat(22) }, withTasks);
    expect(unknown.body.error).toMatchObject({ code: -32602 });
    expect((await rpc('tasks/get', { taskId: '../../etc' }, withTasks)).body.error).toMatchObject({ code: -32602 });
    for (const method of ['tasks/get', 'tasks/cancel', 'tasks/update']) {
      const undeclared = await rpc(method, { taskId });
      expect(undeclared.body.error, method).toMatchObject({ code: -32021 });
    }
    // A crawl never waits for input, so its owner cannot update it either.
    const update = await rpc('tasks/update', { taskId, inputResponses: {} }, withTasks);
    expect(update.body.error).toMatchObject({ code: -32602, message: expect.stringMatching(/never asks for input/) });
    // The owner still has it, and the task still ends as its crawl does.
    expect((await ended(rpc, taskId)).status).toBe('completed');
  });

  it('refuses a crawl task as a plain call would: a subscriber gets the permission error as the tool result', async () => {
    const r = await rawClient(first.mcpUrl, fx.tokens.sub)(
      'tools/call',
      { name: 'svc-full-crawl', arguments: {} },
      withTasks,
    );
    expect(r.body.result).toMatchObject({ resultType: 'complete', isError: true });
    expect(JSON.stringify(r.body.result)).toMatch(/ability_invalid_permissions/);
  });

  it('runs a crawl as a task over stdio too (svc mcp, 2026-07-28 requests)', async () => {
    const child = spawn(process.execPath, [SERVER_JS, 'mcp', '--config', fx.configPath], {
      env: { PATH: process.env.PATH ?? '', SVC_USER: 'admin', SVC_LOG_LEVEL: 'warn' },
      cwd: fx.dir,
    });
    const answers = new Map<number, Record<string, unknown>>();
    createInterface({ input: child.stdout }).on('line', (line) => {
      const m = JSON.parse(line) as { id?: number; result?: Record<string, unknown> };
      if (m.id !== undefined) answers.set(m.id, m.result ?? {});
    });
    let id = 0;
    const call = async (method: string, params: Record<string, unknown>) => {
      const mine = ++id;
      child.stdin.write(
        `${JSON.stringify({ jsonrpc: '2.0', id: mine, method, params: { ...params, _meta: envelopeWith(withTasks.capabilities) } })}\n`,
      );
      return until(`${method} over stdio`, () => answers.get(mine) ?? null, 20_000);
    };
    try {
      const task = await call('tools/call', { name: 'svc-manual-crawl', arguments: { urls: [fx.site.url('/about')] } });
      expect(task).toMatchObject({ resultType: 'task', status: 'working' });
      const done = await until(
        'the stdio task to end',
        async () => {
          const r = await call('tasks/get', { taskId: task.taskId });
          return r.status === 'working' ? null : r;
        },
        60_000,
      );
      expect(done).toMatchObject({ status: 'completed', result: { structuredContent: { mode: 'manual' } } });
    } finally {
      child.stdin.end();
      await new Promise((resolve) => child.once('exit', resolve));
    }
  });
});
