// Where webhooks may be sent: the crawl's address policy (src/crawler/address-policy.ts) applied to the webhook URL.
// Public addresses are fine; a loopback or private one only with allow_private on that webhook, and then only its
// own host:port. Checked on the URL when the config loads, and at connect time for every address a name resolves to.
import { isIP } from 'node:net';
import {
  addressClassText,
  bareHost,
  classifyAddress,
  createAddressPolicy,
  targetEndpoint,
  type AddressPolicy,
} from '../../crawler/address-policy.js';
import type { WebhookConfig } from '../../model/config.js';

const ALLOW_PRIVATE_RULE = 'set "allow_private": true on this webhook to send to it';

/** Why a webhook URL is refused before anything is sent (it names a non-public address, or localhost), or null. */
export function webhookUrlProblem(hook: Pick<WebhookConfig, 'url' | 'allow_private'>): string | null {
  if (hook.allow_private) return null;
  const host = bareHost(new URL(hook.url).hostname);
  const cls =
    host === 'localhost' || host.endsWith('.localhost') ? 'loopback' : isIP(host) ? classifyAddress(host) : 'public';
  if (cls === 'public') return null;
  return `${host} is ${addressClassText(cls)}: ${ALLOW_PRIVATE_RULE}`;
}

/** The connect-time policy of one webhook. */
export function webhookAddressPolicy(hook: Pick<WebhookConfig, 'url' | 'allow_private'>): AddressPolicy {
  const u = new URL(hook.url);
  return createAddressPolicy(
    hook.allow_private ? [targetEndpoint(u.host, u.protocol === 'https:' ? 'https' : 'http')] : [],
    ALLOW_PRIVATE_RULE,
  );
}
