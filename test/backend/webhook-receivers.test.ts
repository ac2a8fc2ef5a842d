// Webhook receivers added at run time (the console's), on both stores: the config's rules refuse bad input and store
// nothing; the secret svc makes is only sealed in the database; after a real crawl the receiver gets a delivery it
// verifies with the Standard Webhooks reference library; once removed, it gets nothing more.
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { App } from '../../src/app/open-app.js';
import { serverKey, WEBHOOK_SECRETS_KEY } from '../../src/auth/server-key.js';
import { openSecret, sealSecret } from '../../src/backend/webhooks/sealed-secret.js';
import {
  addWebhookReceiver,
  listWebhookReceivers,
  removeWebhookReceiver,
  storedWebhookConfigs,
} from '../../src/backend/webhooks/receivers.js';
import { BackendError } from '../../src/model/errors.js';
import { deleteReceiver, insertReceiver, listReceivers } from '../../src/store/webhook-receivers.js';
import { makeAppOn } from '../support/app.js';
import { html, startSite, type TestSite } from '../support/site.js';
import { DIALECTS, storeKit } from '../support/stores.js';

const PROJECT = 'hook0033:eu-north-1';
const KEY = Buffer.alloc(32, 7);

describe('sealed secrets (pure)', () => {
  it('open only with the same key and the same context', () => {
    const sealed = sealSecret(KEY, 'whsec_abc', 'p\nhttps://a.example/');
    expect(sealed).toMatch(/^v1\.[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(sealed).not.toContain('abc');
    expect(openSecret(KEY, sealed, 'p\nhttps://a.example/')).toBe('whsec_abc');
    expect(() => openSecret(KEY, sealed, 'p\nhttps://b.example/')).toThrow();
    expect(() => openSecret(Buffer.alloc(32, 8), sealed, 'p\nhttps://a.example/')).toThrow();
    expect(() => openSecret(KEY, 'plain', 'p')).toThrow('not in the v1 form');
  });
});

describe.each(DIALECTS)('on %s', (dialect) => {
  const kit = storeKit(dialect);
  afterAll(() => kit.stop());

  it('the store keeps one receiver per URL and project, and removes only its own project’s', async () => {
    const { store } = await kit.fresh({ token: PROJECT });
    try {
      const r = { url: 'https://hooks.example.org/a', events: ['crawl.failed' as const], allowPrivate: false };
      const a = await insertReceiver(store.sql, PROJECT, { ...r, secretSealed: 'v1.x.y.z' });
      expect(a).toMatchObject({ ...r, secretSealed: 'v1.x.y.z', id: expect.any(Number) });
      expect(await insertReceiver(store.sql, PROJECT, { ...r, secretSealed: 'v1.q.q.q' })).toBeNull();
      expect(await listReceivers(store.sql, PROJECT)).toEqual([a]);
      expect(await listReceivers(store.sql, 'other000:local')).toEqual([]);
      expect(await deleteReceiver(store.sql, 'other000:local', a!.id)).toBe(false);
      expect(await deleteReceiver(store.sql, PROJECT, a!.id)).toBe(true);
      expect(await listReceivers(store.sql, PROJECT)).toEqual([]);
    } finally {
      await store.close();
    }
  });

  describe('on an app', () => {
    let app: App | null = null;
    let site: TestSite | null = null;
    afterEach(async () => {
      await app?.close();
      await site?.close();
      app = site = null;
    });

    /** The crawled site and, at /hook, a receiver that verifies each request with `secret.value`. */
    async function start() {
      const secret = { value: '' };
      const got: { status: number; body: string; error?: string }[] = [];
      site = await startSite({
        '/': html('<h1>Home</h1><a href="/a">A</a>'),
        '/a': html('<h1>A</h1>'),
        '/hook': async (req, res) => {
          const chunks: Buffer[] = [];
          for await (const c of req) chunks.push(c as Buffer);
          const body = Buffer.concat(chunks).toString('utf8');
          try {
            new Webhook(secret.value).verify(body, req.headers as Record<string, string>);
            got.push({ status: 204, body });
            res.writeHead(204).end();
          } catch (err) {
            got.push({ status: 400, body, error: (err as Error).message });
            res.writeHead(400).end();
          }
        },
      });
      app = await makeAppOn(
        kit,
        {
          project: { public_token: PROJECT },
          targets: [{ host: site.host, scheme: 'http', use_sitemap: false }],
          webhooks: [
            { url: 'https://hooks.example.org/config', secret: 'a-config-secret-16+', events: ['crawl.failed'] },
          ],
        },
        {},
      );
      const p = app.projects[0]!;
      const crawl = async () => {
        const c = await p.backend.startCrawl({ mode: 'full' });
        expect((await p.backend.waitForCrawl(c.id)).status).toBe('completed');
        return c.id;
      };
      return { p, secret, got, crawl, hook: `${site.origin}/hook` };
    }

    it('refuses bad input naming the field and the rule, and stores nothing', async () => {
      const { p, hook } = await start();
      const ctx = p.webhookReceivers;
      const refusal = (input: Parameters<typeof addWebhookReceiver>[1]) =>
        addWebhookReceiver(ctx, input).then(
          () => null,
          (err: unknown) => (err instanceof BackendError ? { code: err.code, message: err.message } : err),
        );
      const ok = { url: 'https://hooks.example.org/svc', events: ['crawl.completed'], allowPrivate: false };
      expect(await refusal({ ...ok, url: 'javascript:alert(1)' })).toEqual({
        code: 'invalid_input',
        message: 'url: must be a full http(s) URL, e.g. https://hooks.example.org/svc',
      });
      expect(await refusal({ ...ok, url: hook })).toEqual({
        code: 'invalid_input',
        message: 'url: 127.0.0.1 is a loopback address: set "allow_private": true on this webhook to send to it',
      });
      expect(await refusal({ ...ok, url: 'https://me:secret@hooks.example.org/svc' })).toEqual({
        code: 'invalid_input',
        message:
          'url: must not carry a user name or password (they would be shown wherever the URL is; the receiver checks webhook-signature instead)',
      });
      expect(await refusal({ ...ok, events: [] })).toMatchObject({
        code: 'invalid_input',
        message: expect.stringMatching(/^events: must list at least one event/),
      });
      expect(await refusal({ ...ok, events: ['crawl.done'] })).toMatchObject({
        code: 'invalid_input',
        message: expect.stringMatching(/^events: must be one of crawl.completed/),
      });
      expect(await refusal({ ...ok, url: 'https://hooks.example.org/config' })).toEqual({
        code: 'conflict',
        message: 'url: the config already sends to this URL',
      });
      expect(await listWebhookReceivers(ctx)).toEqual([]);
      await addWebhookReceiver(ctx, ok);
      expect(await refusal(ok)).toMatchObject({ code: 'conflict' });
      expect(await listWebhookReceivers(ctx)).toHaveLength(1);
    });

    it('a receiver added at run time gets a signed delivery after a crawl; removed, it gets no more', async () => {
      const { p, secret, got, crawl, hook } = await start();
      const ctx = p.webhookReceivers;
      const added = await addWebhookReceiver(ctx, { url: hook, events: ['crawl.completed'], allowPrivate: true });
      secret.value = added.secret;
      expect(added.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect(added.receiver).toEqual({
        id: expect.any(Number),
        url: hook,
        events: ['crawl.completed'],
        allowPrivate: true,
        createdAt: expect.any(String),
      });
      expect(await listWebhookReceivers(ctx)).toEqual([added.receiver]);

      // The database holds the secret only sealed: neither the secret nor its key bytes appear in the row.
      const rows = await p.store.sql.all<Record<string, unknown>>('SELECT * FROM webhook_receivers');
      const text = JSON.stringify(rows);
      expect(text).not.toContain(added.secret);
      expect(text).not.toContain(added.secret.slice('whsec_'.length, 30));
      expect(text).not.toContain(Buffer.from(added.secret.slice(6), 'base64').toString('hex').slice(0, 20));
      expect(String(rows[0]!.secret_sealed)).toMatch(/^v1\./);
      // Another process on the same data opens it with the same server key.
      const again = await storedWebhookConfigs({
        ...ctx,
        secretsKey: () => serverKey(WEBHOOK_SECRETS_KEY, p.store.sql, app!.dataDir),
      });
      expect(again).toEqual([{ url: hook, events: ['crawl.completed'], allow_private: true, secret: added.secret }]);

      const first = await crawl();
      expect(await app!.deliverWebhooksOnce()).toBe(1);
      expect(
        got.map((g) => g.status),
        got[0]?.error,
      ).toEqual([204]);
      expect(JSON.parse(got[0]!.body)).toMatchObject({
        event: 'crawl.completed',
        project: PROJECT,
        crawl: { id: first },
      });
      expect(await p.backend.listWebhookDeliveries({ limit: 10, offset: 0 })).toMatchObject([
        { url: hook, status: 'delivered', crawl: first },
      ]);

      // Removed: the next crawl queues nothing for it.
      expect(await removeWebhookReceiver(ctx, added.receiver.id)).toBe(true);
      expect(await removeWebhookReceiver(ctx, added.receiver.id)).toBe(false);
      expect(await listWebhookReceivers(ctx)).toEqual([]);
      await crawl();
      expect(await app!.deliverWebhooksOnce()).toBe(0);
      expect(await p.backend.listWebhookDeliveries({ limit: 10, offset: 0 })).toHaveLength(1);

      // Added again and removed before its delivery went: that delivery is not sent, and says why.
      const re = await addWebhookReceiver(ctx, { url: hook, events: ['crawl.completed'], allowPrivate: true });
      expect(re.secret).not.toBe(added.secret);
      const third = await crawl();
      await removeWebhookReceiver(ctx, re.receiver.id);
      expect(await app!.deliverWebhooksOnce()).toBe(1);
      expect(got).toHaveLength(1);
      expect((await p.backend.listWebhookDeliveries({ limit: 10, offset: 0 }))[0]).toMatchObject({
        crawl: third,
        status: 'failed',
        lastError: 'no webhook with this URL is configured or added any more',
      });
    });
  });
});
