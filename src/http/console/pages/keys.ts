// Settings → API keys of the project's /v1: create one (shown on this answer only, with a copy button: the store
// keeps its hash), the list by name, first characters, creation and last use (never a key), revoke after a
// confirmation page. The same functions as `svc keys`.
import { escapeHtml as e } from '../../../lib/escape-html.js';
import { API_KEY_NAME_MAX } from '../../../model/limits.js';
import { hiddenCsrf, projectPath, type PageContent } from '../layout.js';
import { table, when, type ActionOutcome, type PageCtx } from './page.js';

export async function keysPage(
  ctx: PageCtx,
  msg: { notice?: string; error?: string; created?: string } = {},
): Promise<PageContent> {
  const keys = await ctx.project.keys.list();
  const rows = keys.map((k) => [
    String(k.id),
    k.name ? e(k.name) : '<span class="muted">(no name)</span>',
    k.prefix ? `<code class="key-prefix">${e(k.prefix)}…</code>` : '<span class="muted">–</span>',
    when(k.createdAt),
    k.lastUsedAt ? when(k.lastUsedAt) : '<span class="muted">never</span>',
    `<a class="button danger" href="${projectPath(ctx.project.token, `keys/${k.id}/revoke`)}" id="revoke-${k.id}" aria-label="Revoke key ${k.id}">Revoke…</a>`,
  ]);
  const created = msg.created
    ? `<section aria-labelledby="new-key-title"><h2 id="new-key-title">Your new API key</h2>
<p>Copy it now: it is shown only this once. Send it as <code>Authorization: Bearer …</code> to <code>/v1/projects/${e(ctx.project.token)}/</code>.</p>
<output class="secret" id="new-key">${e(msg.created)}</output>
<p><button type="button" class="copy" data-copy="new-key" id="copy-key" hidden>Copy the key</button> <span class="muted" id="copy-note" role="status"></span></p></section>`
    : '';
  return {
    title: 'API keys',
    notice: msg.notice,
    error: msg.error,
    body: `${created}<h2>Create a key</h2>
<form method="post" action="${projectPath(ctx.project.token, 'keys')}" class="row">${hiddenCsrf(ctx.csrf)}
<div class="field"><label for="key-name">Name (who or what uses it)</label><input type="text" id="key-name" name="name" maxlength="${API_KEY_NAME_MAX}"></div>
<button type="submit" class="primary" id="create-key">Create key</button></form>
<h2>Keys</h2>${table('keys', ['Id', 'Name', 'Starts with', 'Created', 'Last used', ''], rows, 'No API keys yet.')}`,
  };
}

export async function createKey(ctx: PageCtx, form: URLSearchParams): Promise<ActionOutcome> {
  const name = (form.get('name') ?? '').trim();
  if (name.length > API_KEY_NAME_MAX)
    return {
      status: 400,
      page: await keysPage(ctx, { error: `Name: must be at most ${API_KEY_NAME_MAX} characters. No key was made.` }),
    };
  const { key } = await ctx.project.keys.create(name);
  return { status: 201, page: await keysPage(ctx, { created: key }) };
}

/** The confirmation asked before a revoke (a GET: nothing changes until its form is sent). */
export async function confirmRevokePage(ctx: PageCtx, id: number): Promise<ActionOutcome> {
  const key = (await ctx.project.keys.list()).find((k) => k.id === id);
  if (!key)
    return {
      status: 404,
      page: await keysPage(ctx, { error: `There is no key ${id} in this project, or it was already revoked.` }),
    };
  const label = `${key.name ? `“${key.name}”` : `key ${id}`}${key.prefix ? ` (${key.prefix}…)` : ''}`;
  return {
    status: 200,
    page: {
      title: 'Revoke an API key',
      body: `<p id="confirm-text">Revoke ${e(label)}? Every program that sends it to /v1 is refused from then on; this cannot be undone.</p>
<form method="post" action="${projectPath(ctx.project.token, `keys/${id}/revoke`)}" class="row">${hiddenCsrf(ctx.csrf)}
<button type="submit" class="danger" id="confirm-revoke">Revoke the key</button>
<a href="${projectPath(ctx.project.token, 'keys')}" id="cancel-revoke">Cancel</a></form>`,
    },
  };
}

export async function revokeKey(ctx: PageCtx, id: number): Promise<ActionOutcome> {
  const done = await ctx.project.keys.revoke(id);
  if (done === 'not_found')
    return { status: 404, page: await keysPage(ctx, { error: `There is no key ${id} in this project.` }) };
  if (done === 'already_revoked')
    return { status: 409, page: await keysPage(ctx, { error: `Key ${id} was already revoked: nothing changed.` }) };
  return { redirect: `${projectPath(ctx.project.token, 'keys')}?notice=key-revoked` };
}
