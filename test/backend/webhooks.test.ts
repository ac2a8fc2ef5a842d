// Webhooks without long sleeps: the deliverer runs against a real outbox (SQLite, and PostgreSQL where a server is installed) and a loopback receiver the test
// starts, with a clock the test moves. Signatures are checked by the Standard Webhooks reference library, not by our
// own code. Also the pure parts (back-off, give-up, signature) and the config rules.
import { createHmac, randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { webhookAddressPolicy } from '../../src/backend/webhooks/address.js';
import { WebhookDeliverer } from '../../src/backend/webhooks/deliverer.js';
import {
  afterFailure,
  DEFAULT_RETRY,
  nextAttemptAt,
  signatureHeader,
  standardWebhookHeaders,
} from '../../src/backend/webhooks/payload.js';
import { ConfigError, parseConfig } from '../../src/cli/load-config.js';
import { silentLogger } from '../../src/lib/log.js';
import type { WebhookConfig } from '../../src/model/config.js';
import { webhookSigningKey } from '../../src/model/webhooks.js';
import { claimDueDeliveries, insertDelivery, listDeliveries } from '../../src/store/webhooks.js';
import type { ServiceStore } from '../../src/store/service-store.js';
import { DIALECTS, storeKit } from '../support/stores.js';
import { createCrawl } from '../../src/store/crawls.js';
import { EmbeddedBackend } from '../../src/backend/embedded.js';
import { startSite, type TestSite } from '../support/site.js';

const PROJECT = 'hook0001:eu-north-1';
const SECRET = 'shared-secret-of-the-test';
/** A secret in Standard Webhooks' own form: whsec_ and the base64 of 24 random bytes. */
const WHSEC = `whsec_${randomBytes(24).toString('base64')}`;

/** How a receiver's Standard Webhooks library is given each form of secret: as it is, or as its UTF-8 bytes. */
function verifierFor(secret: string): Webhook {
  return secret.startsWith('whsec_')
    ? new Webhook(secret)
    : new Webhook(Buffer.from(secret, 'utf8'), { format: 'raw' });
}

describe('retry and signature (pure)', () => {
  it('waits 10 s, 20 s, 40 s … at most 10 minutes, and keeps trying for an hour', () => {
    const waits = [1, 2, 3, 4, 8, 20].map((a) => nextAttemptAt(a, 1_000, DEFAULT_RETRY) - 1_000);
    expect(waits).toEqual([10_000, 20_000, 40_000, 80_000, 600_000, 600_000]);
    expect(afterFailure({ attempt: 5, createdAt: 0 }, 'HTTP 500', 3_599_999)).toEqual({
      status: 'pending',
      nextAttemptAt: 3_599_999 + 160_000,
      error: 'HTTP 500',
    });
    expect(afterFailure({ attempt: 12, createdAt: 0 }, 'HTTP 500', 3_600_000)).toEqual({
      status: 'failed',
      error: 'HTTP 500 (gave up after 12 attempts)',
    });
  });

  it('signs the exact body bytes with HMAC-SHA256 (the deprecated header)', () => {
    const body = '{"event":"crawl.completed","ü":1}';
    expect(signatureHeader(body, SECRET)).toBe(
      `sha256=${createHmac('sha256', SECRET).update(Buffer.from(body, 'utf8')).digest('hex')}`,
    );
  });

  it('signs id.timestamp.body as Standard Webhooks does, for a whsec_ secret and for any other', () => {
    const body = '{"event":"crawl.completed","ü":1}';
    const at = new Date('2026-11-25T12:00:00.750Z');
    for (const secret of [SECRET, WHSEC, 'ünïcode secret of the test']) {
      const h = standardWebhookHeaders('d-9', at.getTime(), body, secret);
      expect(h['webhook-id']).toBe('d-9');
      expect(h['webhook-timestamp']).toBe(String(Math.floor(at.getTime() / 1000)));
      expect(h['webhook-signature'], secret).toBe(verifierFor(secret).sign('d-9', at, body));
    }
    expect(webhookSigningKey(WHSEC)).toEqual(Buffer.from(WHSEC.slice(6), 'base64'));
    expect(webhookSigningKey(SECRET)).toEqual(Buffer.from(SECRET));
    expect(webhookSigningKey('whsec_not base64!!')).toBeNull();
    expect(webhookSigningKey(`whsec_${randomBytes(15).toString('base64')}`)).toBeNull();
  });
});

describe('webhook config', () => {
  const base = { project: { public_token: PROJECT }, data_dir: '/tmp/x' };
  const problems = (webhooks: unknown): string[] => {
    try {
      parseConfig({ ...base, webhooks });
      return [];
    } catch (err) {
      if (err instanceof ConfigError) return err.problems;
      throw err;
    }
  };

  it('names the field and the rule, and never echoes the secret', () => {
    expect(problems([{ url: 'ftp://x.example/', secret: 'short', events: ['crawl.done'] }])).toEqual([
      'webhooks[0].url: must be a full http(s) URL, e.g. https://hooks.example.org/svc',
      'webhooks[0].secret: must be at least 16 characters',
      'webhooks[0].events[0]: must be one of crawl.completed, crawl.failed, crawl.stopped',
    ]);
    expect(problems([{ url: 'https://h.example/a' }])).toEqual([
      expect.stringMatching(/^webhooks\[0\]\.secret: is required/),
    ]);
    // Credentials in the URL would be shown in the console and listed on /v1: refused, never echoed.
    for (const url of ['https://user:pass@h.example/a', 'https://token@h.example/a', 'https://:pw@h.example/a'])
      expect(problems([{ url, secret: 'a secret of 16 chars' }]), url).toEqual([
        'webhooks[0].url: must not carry a user name or password (they would be shown wherever the URL is; the receiver checks webhook-signature instead)',
      ]);
    expect(
      problems([
        { url: 'https://h.example/a', secret: SECRET },
        { url: 'https://h.example/a', secret: SECRET },
      ]),
    ).toEqual(['webhooks[1].url: is listed twice: give each URL once, with all its events']);
    expect(problems([{ url: 'https://h.example/a', secret: 'whsec_this is not base64' }])).toEqual([
      "webhooks[0].secret: starts with whsec_, so must be Standard Webhooks' form: whsec_ and the base64 of a key of at least 16 bytes",
    ]);
    expect(problems([{ url: 'https://h.example/a', secret: WHSEC }])).toEqual([]);
  });

  it('a loopback or private URL needs allow_private', () => {
    expect(problems([{ url: 'http://127.0.0.1:9000/hook', secret: SECRET }])).toEqual([
      'webhooks[0].url: 127.0.0.1 is a loopback address: set "allow_private": true on this webhook to send to it',
    ]);
    expect(problems([{ url: 'http://localhost:9000/hook', secret: SECRET }])).toHaveLength(1);
    expect(problems([{ url: 'http://10.1.2.3/hook', secret: SECRET }])).toEqual([
      expect.stringContaining('10.1.2.3 is a private address'),
    ]);
    expect(problems([{ url: 'http://127.0.0.1:9000/hook', secret: SECRET, allow_private: true }])).toEqual([]);
    // A name that resolves to a private address is refused at connect time, with the webhook's own rule.
    expect(
      webhookAddressPolicy({ url: 'https://hooks.example.org/svc', allow_private: false }).check(
        'hooks.example.org',
        443,
        '10.0.0.7',
      ),
    ).toBe(
      'hooks.example.org:443 resolves to 10.0.0.7, a private address; set "allow_private": true on this webhook to send to it',
    );
    const c = parseConfig({ ...base, webhooks: [{ url: 'https://hooks.example.org/svc', secret: SECRET }] });
    expect(c.webhooks[0]).toEqual({
      url: 'https://hooks.example.org/svc',
      secret: SECRET,
      events: ['crawl.completed', 'crawl.failed', 'crawl.stopped'],
      allow_private: false,
    });
  });
});

describe.each(DIALECTS)('on %s', (dialect) => {
  const kit = storeKit(dialect);
  afterAll(() => kit.stop());

  describe('the deliverer', () => {
    let site: TestSite | null = null;
    let store: ServiceStore | null = null;
    const deliverers: WebhookDeliverer[] = [];
    afterEach(async () => {
      for (const d of deliverers.splice(0)) await d.stop();
      await store?.close();
      await site?.close();
    });

    /** A receiver that answers `statuses` in turn (then 200), recording what it got. */
    async function receiver(statuses: number[]) {
      const got: { headers: Record<string, unknown>; body: string; status: number }[] = [];
      site = await startSite({
        '/hook': async (req, res) => {
          const chunks: Buffer[] = [];
          for await (const c of req) chunks.push(c as Buffer);
          const status = statuses.shift() ?? 200;
          got.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), status });
          res.writeHead(status).end();
        },
      });
      return got;
    }

    /** A receiver that checks each request with the Standard Webhooks library: 204 when it verifies, else 400. */
    async function verifyingReceiver(secret: string) {
      const got: { headers: Record<string, string>; body: string; status: number; error?: string }[] = [];
      site = await startSite({
        '/hook': async (req, res) => {
          const chunks: Buffer[] = [];
          for await (const c of req) chunks.push(c as Buffer);
          const body = Buffer.concat(chunks).toString('utf8');
          const headers = req.headers as Record<string, string>;
          try {
            verifierFor(secret).verify(body, headers);
            got.push({ headers, body, status: 204 });
            res.writeHead(204).end();
          } catch (err) {
            got.push({ headers, body, status: 400, error: (err as Error).message });
            res.writeHead(400).end();
          }
        },
      });
      return got;
    }

    async function setup(hook: Partial<WebhookConfig> = {}, startMs = 1_000_000) {
      store = (await kit.fresh({ token: PROJECT })).store;
      const clock = { t: startMs };
      const webhooks: WebhookConfig[] = [
        { url: `${site!.origin}/hook`, secret: SECRET, events: ['crawl.completed'], allow_private: true, ...hook },
      ];
      const make = () => {
        const d = new WebhookDeliverer({
          sql: store!.sql,
          project: PROJECT,
          webhooks,
          logger: silentLogger,
          now: () => clock.t,
          retry: { baseDelayMs: 1_000 },
          leaseMs: 5_000,
        });
        deliverers.push(d);
        return d;
      };
      await insertDelivery(store.sql, {
        id: 'd-1',
        project: PROJECT,
        crawlId: 7,
        event: 'crawl.completed',
        url: webhooks[0]!.url,
        body: '{"event":"crawl.completed","n":1}',
        now: clock.t,
      });
      return { clock, make };
    }

    it('retries with back-off on the injected clock until a 2xx, then never again', async () => {
      const got = await receiver([500, 503]);
      const { clock, make } = await setup();
      const d = make();
      expect(await d.runOnce()).toBe(1);
      let [row] = await listDeliveries(store!.sql, PROJECT, 10, 0);
      expect(row).toMatchObject({
        id: 'd-1',
        status: 'pending',
        attempts: 1,
        lastError: 'the receiver answered HTTP 500',
        nextAttemptAt: new Date(clock.t + 1_000).toISOString(),
      });
      // Not due yet: nothing is sent.
      clock.t += 999;
      expect(await d.runOnce()).toBe(0);
      clock.t += 1;
      expect(await d.runOnce()).toBe(1);
      [row] = await listDeliveries(store!.sql, PROJECT, 10, 0);
      expect(row).toMatchObject({ status: 'pending', attempts: 2, lastError: 'the receiver answered HTTP 503' });
      clock.t += 2_000;
      expect(await d.runOnce()).toBe(1);
      [row] = await listDeliveries(store!.sql, PROJECT, 10, 0);
      expect(row).toMatchObject({ status: 'delivered', attempts: 3, nextAttemptAt: null });
      clock.t += 3_600_000;
      expect(await d.runOnce()).toBe(0);
      expect(got.map((g) => g.status)).toEqual([500, 503, 200]);
      const last = got[2]!;
      expect(last.headers['x-svc-delivery']).toBe('d-1');
      expect(last.headers['content-type']).toBe('application/json');
      expect(last.headers['x-svc-signature-256']).toBe(
        `sha256=${createHmac('sha256', SECRET).update(last.body).digest('hex')}`,
      );
    });

    it('signs in the Standard Webhooks form: a receiver verifies it with the reference library, and refuses a tampered body', async () => {
      for (const secret of [SECRET, WHSEC]) {
        const got = await verifyingReceiver(secret);
        const { make } = await setup({ secret }, Date.now());
        expect(await make().runOnce()).toBe(1);
        expect(
          got.map((g) => g.status),
          got[0]?.error,
        ).toEqual([204]);
        const { headers, body } = got[0]!;
        expect(headers['webhook-id']).toBe('d-1');
        expect(Number(headers['webhook-timestamp'])).toBeGreaterThan(Date.now() / 1000 - 60);
        expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
        // The old header is still sent, for one release.
        expect(headers['x-svc-signature-256']).toBe(signatureHeader(body, secret));
        expect((await listDeliveries(store!.sql, PROJECT, 10, 0))[0]).toMatchObject({ status: 'delivered' });
        expect(() => verifierFor(secret).verify(body.replace('"n":1', '"n":2'), headers)).toThrow(
          'No matching signature found',
        );
        expect(() => verifierFor(secret).verify(body, { ...headers, 'webhook-id': 'd-2' })).toThrow(
          'No matching signature found',
        );
        for (const d of deliverers.splice(0)) await d.stop();
        await store!.close();
        await site!.close();
      }
      store = null;
      site = null;
    });

    it('a receiver refuses an attempt signed more than 5 minutes ago; the retry carries a fresh timestamp', async () => {
      const got = await verifyingReceiver(SECRET);
      const { clock, make } = await setup({}, Date.now() - 6 * 60_000);
      const d = make();
      expect(await d.runOnce()).toBe(1);
      expect(got).toMatchObject([{ status: 400, error: 'Message timestamp too old' }]);
      expect((await listDeliveries(store!.sql, PROJECT, 10, 0))[0]).toMatchObject({
        status: 'pending',
        lastError: 'the receiver answered HTTP 400',
      });
      clock.t = Date.now();
      expect(await d.runOnce()).toBe(1);
      expect(got.map((g) => g.status)).toEqual([400, 204]);
      expect(got[1]!.headers['webhook-id']).toBe(got[0]!.headers['webhook-id']);
      expect((await listDeliveries(store!.sql, PROJECT, 10, 0))[0]).toMatchObject({ status: 'delivered', attempts: 2 });
    });

    it('a claim whose process died is taken again when its lease runs out', async () => {
      const got = await receiver([]);
      const { clock, make } = await setup();
      // Another process claimed it and died before recording anything.
      expect(await claimDueDeliveries(store!.sql, PROJECT, clock.t, 5_000, 10)).toHaveLength(1);
      const d = make();
      expect(await d.runOnce()).toBe(0);
      clock.t += 5_000;
      expect(await d.runOnce()).toBe(1);
      expect((await listDeliveries(store!.sql, PROJECT, 10, 0))[0]).toMatchObject({ status: 'delivered', attempts: 2 });
      expect(got).toHaveLength(1);
    });

    it('gives up after the retry time and says why; a loopback URL without allow_private is never contacted', async () => {
      const got = await receiver([]);
      const { clock, make } = await setup({ allow_private: false });
      const d = make();
      await d.runOnce();
      expect((await listDeliveries(store!.sql, PROJECT, 10, 0))[0]).toMatchObject({
        status: 'pending',
        attempts: 1,
        lastError: expect.stringContaining('allow_private'),
      });
      clock.t += 3_600_000;
      await d.runOnce();
      expect((await listDeliveries(store!.sql, PROJECT, 10, 0))[0]).toMatchObject({
        status: 'failed',
        attempts: 2,
        nextAttemptAt: null,
        lastError: expect.stringContaining('gave up after 2 attempts'),
      });
      expect(got).toHaveLength(0);
    });
  });

  it('a crawl whose owner died is failed by the next process and its crawl.failed event goes into the outbox', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-hook-dead-'));
    const { store } = await kit.fresh({ token: PROJECT });
    // Another process started it and stopped beating a minute ago.
    const dead = (await createCrawl(store.sql, PROJECT, 'full', undefined, {
      instance: 'gone',
      now: Date.now() - 60_000,
    }))!;
    const config = parseConfig({
      project: { public_token: PROJECT },
      data_dir: dataDir,
      webhooks: [{ url: 'https://hooks.example.org/svc', secret: SECRET, events: ['crawl.failed'] }],
    });
    const backend = new EmbeddedBackend({ config, store, logger: silentLogger });
    try {
      expect((await backend.getCrawl(dead.id))?.status).toBe('failed');
      const [d] = await backend.listWebhookDeliveries({ limit: 10, offset: 0 });
      expect(d).toMatchObject({
        event: 'crawl.failed',
        crawl: dead.id,
        status: 'pending',
        url: 'https://hooks.example.org/svc',
      });
      const body = JSON.parse((await store.sql.get<{ body: string }>('SELECT body FROM webhook_deliveries'))!.body);
      expect(body).toMatchObject({
        event: 'crawl.failed',
        project: PROJECT,
        crawl: { id: dead.id, status: 'failed', error: expect.stringMatching(/owner stopped answering/) },
        changes: { newCount: 0, fixedCount: 0, new: [] },
      });
      expect(await backend.crawlChanges(dead.id)).toEqual({ since: null, new: [], fixed: [] });
    } finally {
      await backend.close();
      await store.close();
    }
  });
});
