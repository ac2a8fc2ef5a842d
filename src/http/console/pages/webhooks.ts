// Webhooks: where the project's crawl ends are sent (from the config; never a secret), and the last deliveries
// with their state, as /v1's webhook-deliveries lists them.
import { escapeHtml as e } from '../../../lib/escape-html.js';
import type { PageContent } from '../layout.js';
import { table, when, type PageCtx } from './page.js';

export async function webhooksPage(ctx: PageCtx): Promise<PageContent> {
  const deliveries = await ctx.project.backend.listWebhookDeliveries({ limit: 20, offset: 0 });
  const hooks = ctx.project.webhooks.map((w) => [e(w.url), e(w.events.join(', '))]);
  const rows = deliveries.map((d) => [
    e(d.event),
    e(d.url),
    d.crawl === null ? '–' : String(d.crawl),
    e(d.status),
    String(d.attempts),
    d.lastError ? e(d.lastError) : '',
    when(d.createdAt),
    when(d.deliveredAt),
  ]);
  return {
    title: 'Webhooks',
    body: `<h2>Receivers</h2>${table('webhooks', ['URL', 'Events'], hooks, 'No webhooks configured.')}
<p class="muted">Receivers and their secrets are set in the config file (<code>webhooks</code> of the project).</p>
<h2>Last deliveries</h2>${table('deliveries', ['Event', 'URL', 'Crawl', 'State', 'Attempts', 'Last error', 'Created', 'Delivered'], rows, 'No deliveries yet.')}`,
  };
}
