// The vocabulary of webhooks: the events, the delivery states, and a delivery as /v1 lists it.
import type { CrawlStatus } from './types.js';

export const WEBHOOK_EVENTS = ['crawl.completed', 'crawl.failed', 'crawl.stopped'] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

export const DELIVERY_STATUSES = ['pending', 'sending', 'delivered', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** The event of a crawl that ended with `status`; null for a status that is not an end. */
export function crawlEndEvent(status: CrawlStatus): WebhookEvent | null {
  if (status === 'completed') return 'crawl.completed';
  if (status === 'failed') return 'crawl.failed';
  if (status === 'stopped') return 'crawl.stopped';
  return null;
}

/** Standard Webhooks' secret form: `whsec_` and the padded base64 of the key bytes. */
const STANDARD_SECRET_RE = /^whsec_((?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?)$/;
/** The shortest key a `whsec_` secret may hold: as long as the shortest secret of any other form. */
export const STANDARD_SECRET_MIN_BYTES = 16;

/**
 * The HMAC key of a webhook secret. A secret in Standard Webhooks' form (`whsec_<base64>`) stands for the bytes it
 * encodes, so a receiver's library takes it as it is; any other secret is its own UTF-8 bytes. null for a `whsec_`
 * secret that is not valid base64 of at least 16 bytes (the config refuses it rather than guess).
 */
export function webhookSigningKey(secret: string): Buffer | null {
  if (!secret.startsWith('whsec_')) return Buffer.from(secret, 'utf8');
  const m = STANDARD_SECRET_RE.exec(secret);
  const key = m ? Buffer.from(m[1]!, 'base64') : null;
  return key && key.length >= STANDARD_SECRET_MIN_BYTES ? key : null;
}

/** A delivery as GET /v1/projects/<token>/webhook-deliveries lists it (never the secret). */
export interface WebhookDelivery {
  /** Sent as webhook-id (and the deprecated X-Svc-Delivery). */
  id: string;
  event: WebhookEvent;
  url: string;
  /** The crawl whose end it reports. */
  crawl: number | null;
  status: DeliveryStatus;
  /** Attempts started so far. */
  attempts: number;
  lastError: string | null;
  /** When the next attempt is due (pending), else null. */
  nextAttemptAt: string | null;
  createdAt: string;
  deliveredAt: string | null;
}
