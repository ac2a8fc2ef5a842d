// The tokens of sign-in forms (the console's and the OAuth page's): each is issued by the server for one page,
// signed (HMAC) together with the browser's form cookie and what the form is for, good until it expires, and taken
// once: a second post of the same form is refused. So every guess needs a page of its own from the server, and a
// page of another site cannot post a form it never saw (the cookie is SameSite=Strict and HttpOnly). The key and the
// forms taken are the store's (server-key.ts SIGN_IN_FORM_KEY, spent_sign_in_forms): any process serving the data takes a form
// any of them issued, once.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { spendOnce } from '../store/spent-once.js';
import type { Sql } from '../store/sql.js';
import { keyReader, SIGN_IN_FORM_KEY } from './server-key.js';

const TOKEN_RE = /^(\d{1,15})\.([A-Za-z0-9_-]{16})\.([A-Za-z0-9_-]{43})$/;
/** The form cookie's value: random, chosen by the server (a browser's own is kept when it has this shape). */
export const FORM_NONCE_RE = /^[A-Za-z0-9_-]{24}$/;

export function newFormNonce(): string {
  return randomBytes(18).toString('base64url');
}

export type FormCheck = 'ok' | 'invalid' | 'used';

/** Where forms are signed and spent: the composition root's to give, the page's to use with its own time to live. */
export interface FormStore {
  /** The store whose key signs the forms and which keeps the forms taken. */
  sql: Sql;
  /** Where a SQLite store keeps its server keys. */
  dataDir: string;
  /** Clock (ms); tests move it. */
  now?: () => number;
}

export interface SignInFormsOptions extends FormStore {
  /** How long a form may be posted after it was issued (ms). */
  ttlMs: number;
}

export class SignInForms {
  private readonly now: () => number;
  private readonly key: () => Promise<Buffer>;

  constructor(private readonly opts: SignInFormsOptions) {
    this.now = opts.now ?? Date.now;
    this.key = keyReader(SIGN_IN_FORM_KEY, opts.sql, opts.dataDir);
  }

  private async mac(expires: number, formId: string, nonce: string, bound: string): Promise<string> {
    return createHmac('sha256', await this.key())
      .update(`${expires}.${formId}.${nonce}.${bound}`)
      .digest('base64url');
  }

  /** A new form's token for the browser holding `nonce`, bound to `bound` (what the form is for; may be ''). */
  async issue(nonce: string, bound = ''): Promise<string> {
    const expires = this.now() + this.opts.ttlMs;
    const formId = randomBytes(12).toString('base64url');
    return `${expires}.${formId}.${await this.mac(expires, formId, nonce, bound)}`;
  }

  /** Takes a posted form: 'ok' once, 'used' after, 'invalid' when not ours, for another cookie or purpose, or expired. */
  async take(token: unknown, nonce: string | undefined, bound = ''): Promise<FormCheck> {
    if (typeof token !== 'string' || !nonce || !FORM_NONCE_RE.test(nonce)) return 'invalid';
    const m = TOKEN_RE.exec(token);
    const now = this.now();
    if (!m || Number(m[1]) <= now) return 'invalid';
    const want = Buffer.from(await this.mac(Number(m[1]), m[2]!, nonce, bound));
    const got = Buffer.from(m[3]!);
    if (want.length !== got.length || !timingSafeEqual(want, got)) return 'invalid';
    // Kept until the form would have expired: after that its signature refuses it anyway.
    return (await spendOnce(this.opts.sql, 'signInForm', m[2]!, Number(m[1]), now)) ? 'ok' : 'used';
  }
}
