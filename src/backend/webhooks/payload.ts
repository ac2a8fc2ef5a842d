// Pure parts of webhooks: the body of a crawl-end event, its signatures, and when a failed delivery is tried again.
import { createHmac } from 'node:crypto';
import type { CrawlChanges } from '../../model/history.js';
import type { CrawlRecord } from '../../model/types.js';
import { webhookSigningKey, type WebhookEvent } from '../../model/webhooks.js';
import type { AttemptOutcome } from '../../store/webhooks.js';

/** New problems a webhook body lists at most (the counts are always complete). */
export const WEBHOOK_NEW_MAX = 100;

/** The exact JSON body of a crawl-end event: the crawl as /v1 shows it, and what it changed. */
export function webhookBody(e: {
  event: WebhookEvent;
  project: string;
  crawl: CrawlRecord;
  changes: CrawlChanges;
}): string {
  return JSON.stringify({
    event: e.event,
    project: e.project,
    crawl: e.crawl,
    changes: {
      since: e.changes.since,
      newCount: e.changes.new.length,
      fixedCount: e.changes.fixed.length,
      new: e.changes.new.slice(0, WEBHOOK_NEW_MAX),
    },
  });
}

/**
 * The deprecated X-Svc-Signature-256 value (kept for one release beside the Standard Webhooks headers): `sha256=`
 * and the hex HMAC-SHA256 of the exact body bytes keyed with the secret's UTF-8 bytes, whatever its form.
 */
export function signatureHeader(body: string, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(body, 'utf8').digest('hex')}`;
}

/**
 * The Standard Webhooks headers of one attempt: the delivery id (the same on every retry), the attempt's time in
 * Unix seconds, and `v1,` with the base64 HMAC-SHA256 of `id.timestamp.body` keyed as webhookSigningKey says. The
 * timestamp is signed, so a receiver can refuse a replay of an old request.
 */
export function standardWebhookHeaders(
  id: string,
  nowMs: number,
  body: string,
  secret: string,
): Record<'webhook-id' | 'webhook-timestamp' | 'webhook-signature', string> {
  const key = webhookSigningKey(secret);
  if (!key)
    throw new Error(
      'webhook secret: starts with whsec_ but is not its base64 form (the config should have refused it)',
    );
  const timestamp = String(Math.floor(nowMs / 1000));
  const signature = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`, 'utf8').digest('base64');
  return { 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': `v1,${signature}` };
}

export interface RetryPolicy {
  /** Wait after the first failed attempt; each further failure doubles it. */
  baseDelayMs: number;
  /** Longest wait between two attempts. */
  maxDelayMs: number;
  /** A delivery that fails this long after it was created fails for good. */
  retryForMs: number;
}

/** 10 s, 20 s, 40 s … at most 10 minutes apart, for an hour: about 12 attempts. */
export const DEFAULT_RETRY: RetryPolicy = { baseDelayMs: 10_000, maxDelayMs: 600_000, retryForMs: 3_600_000 };

/** When attempt `attempts + 1` is due after attempt `attempts` (1 or more) failed at `now`. */
export function nextAttemptAt(attempts: number, now: number, policy: RetryPolicy = DEFAULT_RETRY): number {
  const exp = Math.min(Math.max(attempts, 1) - 1, 30);
  return now + Math.min(policy.baseDelayMs * 2 ** exp, policy.maxDelayMs);
}

/** After failed attempt `attempt` of a delivery created at `createdAt`: try again later, or fail once the retry time is spent. */
export function afterFailure(
  d: { attempt: number; createdAt: number },
  error: string,
  now: number,
  policy: RetryPolicy = DEFAULT_RETRY,
): AttemptOutcome {
  if (now - d.createdAt >= policy.retryForMs)
    return { status: 'failed', error: `${error} (gave up after ${d.attempt} attempts)` };
  return { status: 'pending', nextAttemptAt: nextAttemptAt(d.attempt, now, policy), error };
}
