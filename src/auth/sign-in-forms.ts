// The tokens of sign-in forms (the console's and the OAuth page's): each is issued by the server for one page,
// signed (HMAC) together with the browser's form cookie and what the form is for, good until it expires, and taken
// once: a second post of the same form is refused. So every guess needs a page of its own from the server, and a
// page of another site cannot post a form it never saw (the cookie is SameSite=Strict and HttpOnly).
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** Forms remembered as taken at most (each until it expires); past that the oldest are forgotten first. */
const MAX_TAKEN = 100_000;
const TOKEN_RE = /^(\d{1,15})\.([A-Za-z0-9_-]{16})\.([A-Za-z0-9_-]{43})$/;
/** The form cookie's value: random, chosen by the server (a browser's own is kept when it has this shape). */
export const FORM_NONCE_RE = /^[A-Za-z0-9_-]{24}$/;

export function newFormNonce(): string {
  return randomBytes(18).toString('base64url');
}

export type FormCheck = 'ok' | 'invalid' | 'used';

export class SignInForms {
  private readonly key = randomBytes(32);
  private readonly now: () => number;
  /** Form ids taken, each remembered one TTL from when it was taken (so insertion order is expiry order). */
  private readonly taken = new Map<string, number>();

  constructor(private readonly opts: { ttlMs: number; now?: () => number }) {
    this.now = opts.now ?? Date.now;
  }

  private mac(expires: number, formId: string, nonce: string, bound: string): string {
    return createHmac('sha256', this.key).update(`${expires}.${formId}.${nonce}.${bound}`).digest('base64url');
  }

  /** A new form's token for the browser holding `nonce`, bound to `bound` (what the form is for; may be ''). */
  issue(nonce: string, bound = ''): string {
    const expires = this.now() + this.opts.ttlMs;
    const formId = randomBytes(12).toString('base64url');
    return `${expires}.${formId}.${this.mac(expires, formId, nonce, bound)}`;
  }

  /** Takes a posted form: 'ok' once, 'used' after, 'invalid' when not ours, for another cookie or purpose, or expired. */
  take(token: unknown, nonce: string | undefined, bound = ''): FormCheck {
    if (typeof token !== 'string' || !nonce || !FORM_NONCE_RE.test(nonce)) return 'invalid';
    const m = TOKEN_RE.exec(token);
    if (!m || Number(m[1]) < this.now()) return 'invalid';
    const want = Buffer.from(this.mac(Number(m[1]), m[2]!, nonce, bound));
    const got = Buffer.from(m[3]!);
    if (want.length !== got.length || !timingSafeEqual(want, got)) return 'invalid';
    for (const [id, expires] of this.taken) {
      if (expires >= this.now() && this.taken.size < MAX_TAKEN) break;
      this.taken.delete(id);
    }
    if (this.taken.has(m[2]!)) return 'used';
    this.taken.set(m[2]!, this.now() + this.opts.ttlMs);
    return 'ok';
  }
}
