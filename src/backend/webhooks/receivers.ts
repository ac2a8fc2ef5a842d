// Webhook receivers added at run time (the console), beside the config's: checked by the config's own rules, given
// a Standard Webhooks secret svc makes (shown once, then only sealed in the database), listed, removed, and opened
// for the deliverer.
import { randomBytes } from 'node:crypto';
import { WebhookSchema, type WebhookConfig } from '../../model/config.js';
import { BackendError } from '../../model/errors.js';
import type { WebhookEvent } from '../../model/webhooks.js';
import type { Sql } from '../../store/sql.js';
import { deleteReceiver, insertReceiver, listReceivers } from '../../store/webhook-receivers.js';
import { webhookUrlProblem } from './address.js';
import { openSecret, sealSecret } from './sealed-secret.js';

/** A stored receiver as a person sees it: never its secret. */
export interface WebhookReceiverInfo {
  id: number;
  url: string;
  events: WebhookEvent[];
  allowPrivate: boolean;
  createdAt: string;
}

export interface NewReceiverInput {
  url: string;
  events: readonly string[];
  allowPrivate: boolean;
}

/** What the receivers act on: the project's store, its sealing key (made on first use), the config's receivers. */
export interface ReceiversContext {
  sql: Sql;
  project: string;
  secretsKey: () => Promise<Buffer>;
  /** The config's receivers: their URLs may not be added again. */
  configured: readonly Pick<WebhookConfig, 'url'>[];
}

/** A new signing secret in Standard Webhooks' form: whsec_ and the base64 of 32 random bytes. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** What binds a sealed secret to its row. */
const sealContext = (project: string, url: string) => `webhook-receiver\n${project}\n${url}`;

const invalid = (message: string) => new BackendError('invalid_input', message);

/** The input checked by the config's rules (URL form and address, events), or a BackendError naming the field. */
function checkedInput(input: NewReceiverInput): { url: string; events: WebhookEvent[]; allowPrivate: boolean } {
  const url = WebhookSchema.shape.url.safeParse(input.url.trim());
  if (!url.success) throw invalid(`url: ${url.error.issues[0]!.message}`);
  const events = WebhookSchema.shape.events.safeParse([...input.events]);
  if (!events.success) throw invalid(`events: ${events.error.issues[0]!.message}`);
  const problem = webhookUrlProblem({ url: url.data, allow_private: input.allowPrivate });
  if (problem) throw invalid(`url: ${problem}`);
  return { url: url.data, events: [...new Set(events.data)], allowPrivate: input.allowPrivate };
}

/** Adds a receiver with a new secret; answers it and the secret (the only time the secret leaves svc in clear). */
export async function addWebhookReceiver(
  ctx: ReceiversContext,
  input: NewReceiverInput,
): Promise<{ receiver: WebhookReceiverInfo; secret: string }> {
  const r = checkedInput(input);
  if (ctx.configured.some((h) => h.url === r.url))
    throw new BackendError('conflict', 'url: the config already sends to this URL');
  const secret = newWebhookSecret();
  const secretSealed = sealSecret(await ctx.secretsKey(), secret, sealContext(ctx.project, r.url));
  const stored = await insertReceiver(ctx.sql, ctx.project, { ...r, secretSealed });
  if (!stored) throw new BackendError('conflict', 'url: a receiver with this URL was already added');
  const { secretSealed: _, ...receiver } = stored;
  return { receiver, secret };
}

/** The project's added receivers, oldest first, without their secrets. */
export async function listWebhookReceivers(
  ctx: Pick<ReceiversContext, 'sql' | 'project'>,
): Promise<WebhookReceiverInfo[]> {
  return (await listReceivers(ctx.sql, ctx.project)).map(({ secretSealed: _, ...r }) => r);
}

/** Removes an added receiver: no delivery is made to it from now on. Whether there was one. */
export async function removeWebhookReceiver(
  ctx: Pick<ReceiversContext, 'sql' | 'project'>,
  id: number,
): Promise<boolean> {
  return deleteReceiver(ctx.sql, ctx.project, id);
}

/** The added receivers as the deliverer sends to them: with their secrets opened. */
export async function storedWebhookConfigs(ctx: Omit<ReceiversContext, 'configured'>): Promise<WebhookConfig[]> {
  const stored = await listReceivers(ctx.sql, ctx.project);
  if (!stored.length) return [];
  const key = await ctx.secretsKey();
  return stored.map((r) => ({
    url: r.url,
    events: r.events,
    allow_private: r.allowPrivate,
    secret: openSecret(key, r.secretSealed, sealContext(ctx.project, r.url)),
  }));
}
