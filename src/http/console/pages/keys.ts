// Settings → API keys of the project's /v1: create one (shown on this answer only: the store keeps its hash),
// the list by name and creation time (never a key), revoke. The same functions as `svc keys`.
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
    when(k.createdAt),
    `<form class="inline" method="post" action="${projectPath(ctx.project.token, `keys/${k.id}/revoke`)}">${hiddenCsrf(ctx.csrf)}<button type="submit" class="danger" id="revoke-${k.id}" aria-label="Revoke key ${k.id}">Revoke</button></form>`,
  ]);
  const created = msg.created
    ? `<section aria-labelledby="new-key-title"><h2 id="new-key-title">Your new API key</h2>
<p>Copy it now: it is shown only this once. Send it as <code>Authorization: Bearer …</code> to <code>/v1/projects/${e(ctx.project.token)}/</code>.</p>
<output class="secret" id="new-key">${e(msg.created)}</output></section>`
    : '';
  return {
    title: 'API keys',
    notice: msg.notice,
    error: msg.error,
    body: `${created}<h2>Create a key</h2>
<form method="post" action="${projectPath(ctx.project.token, 'keys')}" class="row">${hiddenCsrf(ctx.csrf)}
<div class="field"><label for="key-name">Name (who or what uses it)</label><input type="text" id="key-name" name="name" maxlength="${API_KEY_NAME_MAX}"></div>
<button type="submit" class="primary" id="create-key">Create key</button></form>
<h2>Keys</h2>${table('keys', ['Id', 'Name', 'Created', ''], rows, 'No API keys yet.')}`,
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

export async function revokeKey(ctx: PageCtx, id: number): Promise<ActionOutcome> {
  if (!(await ctx.project.keys.revoke(id)))
    return { status: 404, page: await keysPage(ctx, { error: `There is no key ${id} in this project.` }) };
  return { redirect: `${projectPath(ctx.project.token, 'keys')}?notice=key-revoked` };
}
