// PUT and DELETE /v1/projects/<token>/schedule on SQLite and PostgreSQL: a project API key sets a schedule that
// replaces the config's, GET and the remote backend see it, bad input is a 400 naming the field and the rule and
// leaves what is stored as it was.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app/open-app.js';
import { RemoteBackend } from '../../src/backend/remote.js';
import { silentLogger } from '../../src/lib/log.js';
import { BackendError } from '../../src/model/errors.js';
import { makeAppOn, startFacade, TOKEN, type Facade } from '../support/app.js';
import { DIALECTS, storeKit } from '../support/stores.js';

async function call(url: string, init: RequestInit = {}): Promise<{ status: number; body: any }> {
  const res = await fetch(url, init);
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

describe.each(DIALECTS)('/v1 …/schedule on %s', (dialect) => {
  const kit = storeKit(dialect);
  let app: App;
  let f: Facade;
  let headers: Record<string, string>;

  beforeAll(async () => {
    app = await makeAppOn(kit, { schedule: { full: '0 3 * * *' } });
    f = await startFacade(app);
    headers = { authorization: `Bearer ${f.key}`, 'content-type': 'application/json' };
  });
  afterAll(async () => {
    await f?.close();
    await app?.close();
    await kit.stop();
  });

  it('PUT stores a schedule in place of the config one; GET shows it; DELETE goes back to the config', async () => {
    expect((await call(`${f.api}/schedule`, { headers })).body).toMatchObject({
      source: 'config',
      setAt: null,
      full: { cron: '0 3 * * *' },
      partial: null,
    });
    const put = await call(`${f.api}/schedule`, {
      method: 'PUT',
      headers,
      body: JSON.stringify({ partial: '0 */6 * * *' }),
    });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ source: 'stored', full: null, partial: { cron: '0 */6 * * *', lastRun: null } });
    expect(Date.parse(put.body.partial.nextRun)).toBeGreaterThan(Date.now());
    expect((await call(`${f.api}/schedule`, { headers })).body).toEqual(put.body);
    const del = await call(`${f.api}/schedule`, { method: 'DELETE', headers });
    expect(del.status).toBe(200);
    expect(del.body).toMatchObject({ source: 'config', full: { cron: '0 3 * * *' }, partial: null });
  });

  it('bad input: 400 naming the field and the rule, and the stored schedule is kept', async () => {
    await call(`${f.api}/schedule`, { method: 'PUT', headers, body: JSON.stringify({ full: '15 4 * * *' }) });
    const cases: [unknown, RegExp][] = [
      [{ full: '0 25 * * *' }, /^full: must be a cron expression of 5 fields .*: /],
      [{ full: '0 4 * * *', partial: 'hourly' }, /^partial: must be a cron expression/],
      [{ full: 7 }, /^full: must be a cron expression \(a string\)/],
      [{ nightly: '0 3 * * *' }, /unknown field "nightly"/],
      [['0 3 * * *'], /body must be a JSON object/],
    ];
    for (const [body, message] of cases) {
      const a = await call(`${f.api}/schedule`, { method: 'PUT', headers, body: JSON.stringify(body) });
      expect(a.status, JSON.stringify(body)).toBe(400);
      expect(a.body.error.code).toBe('invalid_input');
      expect(a.body.error.message).toMatch(message);
    }
    expect((await call(`${f.api}/schedule`, { headers })).body).toMatchObject({
      source: 'stored',
      full: { cron: '15 4 * * *' },
    });
    // Without a key nothing is changed either.
    const anon = await call(`${f.api}/schedule`, { method: 'DELETE' });
    expect(anon.status).toBe(401);
    expect((await call(`${f.api}/schedule`, { headers })).body.source).toBe('stored');
    const post = await call(`${f.api}/schedule`, { method: 'POST', headers, body: '{}' });
    expect(post.status).toBe(405);
    expect(post.body.error.message).toMatch(/GET, HEAD, PUT, DELETE/);
  });

  it('the remote backend sets and clears through PUT and DELETE; a refusal is invalid_input naming the field', async () => {
    const remote = new RemoteBackend({ baseUrl: f.baseUrl, apiKey: f.key, publicToken: TOKEN, logger: silentLogger });
    try {
      expect(await remote.setSchedule({ full: '*/30 * * * *', partial: null })).toMatchObject({
        source: 'stored',
        full: { cron: '*/30 * * * *' },
      });
      expect(await app.backend.schedule()).toMatchObject({ source: 'stored', full: { cron: '*/30 * * * *' } });
      const err = await remote.setSchedule({ full: '* * *' }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(BackendError);
      expect(err).toMatchObject({ code: 'invalid_input', message: expect.stringMatching(/full: must be a cron/) });
      expect(await remote.setSchedule(null)).toMatchObject({ source: 'config', full: { cron: '0 3 * * *' } });
      const doc = (await call(`${f.baseUrl}/v1/openapi.json`)).body;
      const ops = doc.paths['/v1/projects/{publicToken}/schedule'];
      expect(Object.keys(ops).filter((k) => k !== 'parameters')).toEqual(['get', 'put', 'delete']);
      expect(ops.put.requestBody.content['application/json'].schema.properties.full).toBeDefined();
    } finally {
      await remote.close();
    }
  });
});
