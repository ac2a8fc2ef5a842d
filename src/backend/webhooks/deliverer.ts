// Sends the webhook outbox: claims due deliveries (with a lease, so a process that dies mid-send loses nothing),
// POSTs each with undici through the address policy, and records delivered, a later retry, or failed.
import { Agent } from '../../lib/undici-agent.js';
import { guardedConnector } from '../../crawler/guarded-connector.js';
import type { Logger } from '../../lib/log.js';
import type { WebhookConfig } from '../../model/config.js';
import { claimDueDeliveries, recordAttempt, type ClaimedDelivery } from '../../store/webhooks.js';
import type { Sql } from '../../store/sql.js';
import { afterFailure, DEFAULT_RETRY, signatureHeader, standardWebhookHeaders, type RetryPolicy } from './payload.js';
import { webhookAddressPolicy, webhookUrlProblem } from './address.js';

export interface DelivererOptions {
  sql: Sql;
  project: string;
  webhooks: readonly WebhookConfig[];
  /** The receivers added at run time (with their secrets opened), looked up when a delivery is not for the config's. */
  stored?: () => Promise<readonly WebhookConfig[]>;
  logger: Logger;
  /** ms since the epoch; injectable for tests. */
  now?: () => number;
  retry?: Partial<RetryPolicy>;
  /** Per attempt: connect, answer and body (default 10 s). */
  timeoutMs?: number;
  /** How often the outbox is looked at (default 1 s). */
  pollMs?: number;
  /** How long a claim holds before another process may take the delivery (default 60 s). */
  leaseMs?: number;
}

export class WebhookDeliverer {
  private readonly now: () => number;
  private readonly retry: RetryPolicy;
  private readonly timeoutMs: number;
  private readonly leaseMs: number;
  private readonly agents = new Map<string, Agent>();
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<number> | null = null;
  private again = false;
  private stopped = false;

  constructor(private readonly opts: DelivererOptions) {
    this.now = opts.now ?? Date.now;
    this.retry = { ...DEFAULT_RETRY, ...opts.retry };
    this.timeoutMs = opts.timeoutMs ?? 10_000;
    this.leaseMs = opts.leaseMs ?? 60_000;
  }

  /** Looks at the outbox every pollMs until stop(). */
  start(): void {
    if (this.timer || this.stopped) return;
    const tick = () => {
      this.kick();
      this.timer = setTimeout(tick, this.opts.pollMs ?? 1000);
      this.timer.unref();
    };
    tick();
  }

  /** Sends what is due now (again after the current round, when one runs). */
  kick(): void {
    if (this.running) {
      this.again = true;
      return;
    }
    void this.runOnce().catch((err: unknown) => this.opts.logger.warn({ err }, 'webhook delivery round failed'));
  }

  /** One round: every due delivery is claimed and sent; answers how many were sent. */
  runOnce(): Promise<number> {
    if (this.running) return this.running;
    const round: Promise<number> = this.round().finally(() => {
      if (this.running === round) this.running = null;
    });
    this.running = round;
    return round;
  }

  private async round(): Promise<number> {
    let sent = 0;
    do {
      this.again = false;
      for (;;) {
        if (this.stopped) return sent;
        const batch = await claimDueDeliveries(this.opts.sql, this.opts.project, this.now(), this.leaseMs, 10);
        if (!batch.length) break;
        await Promise.all(batch.map((d) => this.send(d)));
        sent += batch.length;
      }
    } while (this.again);
    return sent;
  }

  /** Stops the loop, waits for the round in flight, closes connections. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running?.catch(() => 0);
    await Promise.allSettled([...this.agents.values()].map((a) => a.close()));
    this.agents.clear();
  }

  private agentFor(hook: WebhookConfig): Agent {
    // Keyed by what the policy depends on: a receiver removed and added again may allow another address.
    const id = `${hook.allow_private ? 'private' : 'public'} ${hook.url}`;
    let a = this.agents.get(id);
    if (!a) {
      a = new Agent({
        connect: guardedConnector(webhookAddressPolicy(hook), this.timeoutMs),
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
        keepAliveTimeout: 4_000,
      });
      this.agents.set(id, a);
    }
    return a;
  }

  private async send(d: ClaimedDelivery): Promise<void> {
    const { sql, logger } = this.opts;
    const hook =
      this.opts.webhooks.find((h) => h.url === d.url) ?? (await this.opts.stored?.())?.find((h) => h.url === d.url);
    let outcome: Parameters<typeof recordAttempt>[2];
    if (!hook) {
      outcome = { status: 'failed', error: 'no webhook with this URL is configured or added any more' };
    } else {
      const refused = webhookUrlProblem(hook);
      const error = refused ?? (await this.post(hook, d));
      outcome = error === null ? { status: 'delivered' } : afterFailure(d, error, this.now(), this.retry);
    }
    await recordAttempt(sql, d.id, outcome, this.now());
    // The URL may carry a token in its query: log its origin only. The secret never reaches a log.
    const where = safeOrigin(d.url);
    if (outcome.status === 'delivered')
      logger.info({ delivery: d.id, event: d.event, url: where, attempt: d.attempt }, 'webhook delivered');
    else
      logger.warn(
        {
          delivery: d.id,
          event: d.event,
          url: where,
          attempt: d.attempt,
          status: outcome.status,
          error: outcome.error,
        },
        'webhook delivery failed',
      );
  }

  /** One POST; null when the receiver answered 2xx, else why not. */
  private async post(hook: WebhookConfig, d: ClaimedDelivery): Promise<string | null> {
    const u = new URL(hook.url);
    try {
      const res = await this.agentFor(hook).request({
        origin: u.origin,
        path: `${u.pathname}${u.search}`,
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': 'svc-webhooks/1',
          ...standardWebhookHeaders(d.id, this.now(), d.body, hook.secret),
          'x-svc-event': d.event,
          // Deprecated: kept for one release, for receivers not yet on the webhook-* headers.
          'x-svc-delivery': d.id,
          'x-svc-signature-256': signatureHeader(d.body, hook.secret),
        },
        body: d.body,
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      await res.body.dump({ limit: 64 * 1024 }).catch(() => {});
      return res.statusCode >= 200 && res.statusCode < 300 ? null : `the receiver answered HTTP ${res.statusCode}`;
    } catch (err) {
      const e = err as { name?: string; code?: string; message?: string; cause?: { code?: string; message?: string } };
      if (e.name === 'TimeoutError' || e.name === 'AbortError') return `no answer within ${this.timeoutMs} ms`;
      if (e.code === 'SVC_ADDRESS_BLOCKED') return `refused by the address policy: ${e.message}`;
      return e.cause?.code ?? e.code ?? e.message ?? String(err);
    }
  }
}

function safeOrigin(url: string): string {
  try {
    const u = new URL(url);
    return `${u.origin}${u.pathname}`;
  } catch {
    return '(invalid URL)';
  }
}
