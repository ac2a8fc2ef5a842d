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

/** A delivery as GET /v1/projects/<token>/webhook-deliveries lists it (never the secret). */
export interface WebhookDelivery {
  /** Sent as X-Svc-Delivery. */
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
