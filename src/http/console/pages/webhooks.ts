// Webhooks: where the project's crawl ends are sent — the config's receivers (read only here) and those added in the
// console (add: svc makes the signing secret and shows it once; remove) — and the last deliveries with their state,
// as /v1's webhook-deliveries lists them. No secret is ever listed.
import { escapeHtml as e } from '../../../lib/escape-html.js';
import { WEBHOOK_EVENTS } from '../../../model/webhooks.js';
import { hiddenCsrf, projectPath, type PageContent } from '../layout.js';
import { refusalMessage, table, when, type ActionOutcome, type PageCtx } from './page.js';

/** What the add form held, to show it again after a refusal (escaped when rendered). */
interface AddForm {
  url: string;
  events: readonly string[];
  allowPrivate: boolean;
}

export async function webhooksPage(
  ctx: PageCtx,
  msg: { notice?: string; error?: string; created?: { url: string; secret: string }; form?: AddForm } = {},
): Promise<PageContent> {
  const token = ctx.project.token;
  const deliveries = await ctx.project.backend.listWebhookDeliveries({ limit: 20, offset: 0 });
  const added = await ctx.project.webhooks.list();
  const hooks = [
    ...ctx.project.webhooks.configured.map((w) => [
      e(w.url),
      e(w.events.join(', ')),
      '<span class="muted">from config</span>',
      '',
    ]),
    ...added.map((w) => [
      e(w.url),
      e(w.events.join(', ')),
      `added ${when(w.createdAt)}`,
      `<form class="inline" method="post" action="${projectPath(token, `webhooks/${w.id}/remove`)}">${hiddenCsrf(ctx.csrf)}<button type="submit" class="danger" id="remove-webhook-${w.id}" aria-label="Remove the webhook to ${e(w.url)}">Remove</button></form>`,
    ]),
  ];
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
  const created = msg.created
    ? `<section aria-labelledby="new-webhook-title"><h2 id="new-webhook-title">Signing secret of the new webhook</h2>
<p>Give it to the receiver at <code>${e(msg.created.url)}</code> now: it is shown only this once. The receiver checks <code>webhook-signature</code> with it (Standard Webhooks).</p>
<output class="secret" id="new-webhook-secret">${e(msg.created.secret)}</output></section>`
    : '';
  const form = msg.form ?? { url: '', events: ['crawl.completed'], allowPrivate: false };
  const eventBoxes = WEBHOOK_EVENTS.map(
    (ev) =>
      `<label><input type="checkbox" name="events" value="${ev}"${form.events.includes(ev) ? ' checked' : ''}> ${ev}</label>`,
  ).join(' ');
  return {
    title: 'Webhooks',
    notice: msg.notice,
    error: msg.error,
    body: `${created}<h2>Receivers</h2>${table('webhooks', ['URL', 'Events', 'Source', ''], hooks, 'No webhooks yet.')}
<p class="muted">Receivers in the config file (<code>webhooks</code> of the project) are changed there.</p>
<h2>Add a webhook</h2>
<form method="post" action="${projectPath(token, 'webhooks')}">${hiddenCsrf(ctx.csrf)}
<div class="field"><label for="webhook-url">URL (http or https)</label><input type="url" id="webhook-url" name="url" required value="${e(form.url)}" placeholder="https://hooks.example.org/svc"></div>
<fieldset><legend>Events</legend>${eventBoxes}</fieldset>
<div class="field"><label><input type="checkbox" id="webhook-allow-private" name="allow_private" value="1"${form.allowPrivate ? ' checked' : ''}> Allow a loopback or private address (this host and port only)</label></div>
<button type="submit" class="primary" id="add-webhook">Add webhook</button></form>
<h2>Last deliveries</h2>${table('deliveries', ['Event', 'URL', 'Crawl', 'State', 'Attempts', 'Last error', 'Created', 'Delivered'], rows, 'No deliveries yet.')}`,
  };
}

export async function addWebhook(ctx: PageCtx, f: URLSearchParams): Promise<ActionOutcome> {
  const form: AddForm = {
    url: f.get('url') ?? '',
    events: f.getAll('events'),
    allowPrivate: f.get('allow_private') === '1',
  };
  try {
    const { receiver, secret } = await ctx.project.webhooks.add(form);
    return { status: 201, page: await webhooksPage(ctx, { created: { url: receiver.url, secret } }) };
  } catch (err) {
    const r = refusalMessage(err);
    return { status: r.status, page: await webhooksPage(ctx, { error: `No webhook was added: ${r.message}`, form }) };
  }
}

export async function removeWebhook(ctx: PageCtx, id: number): Promise<ActionOutcome> {
  if (!(await ctx.project.webhooks.remove(id)))
    return {
      status: 404,
      page: await webhooksPage(ctx, { error: `There is no added webhook ${id} in this project.` }),
    };
  return { redirect: `${projectPath(ctx.project.token, 'webhooks')}?notice=webhook-removed` };
}
