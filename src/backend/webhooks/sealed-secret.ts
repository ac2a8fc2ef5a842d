// A webhook's signing secret as the database keeps it: svc must sign with it, so it cannot be a hash; it is sealed
// with AES-256-GCM under a key kept outside the database (the webhook secrets key), bound to its project and URL so
// a sealed secret copied to another row does not open.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const FORM = 'v1';

/** `v1.<iv>.<tag>.<ciphertext>` (base64url) of `secret` under `key` (32 bytes), bound to `context`. */
export function sealSecret(key: Buffer, secret: string, context: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(context, 'utf8'));
  const body = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return [FORM, iv, cipher.getAuthTag(), body]
    .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
    .join('.');
}

/** The secret sealed by sealSecret with the same key and context; an error when the key, the context or the text differs. */
export function openSecret(key: Buffer, sealed: string, context: string): string {
  const [form, iv, tag, body] = sealed.split('.');
  if (form !== FORM || iv === undefined || tag === undefined || body === undefined)
    throw new Error('a sealed webhook secret is not in the v1 form');
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  decipher.setAAD(Buffer.from(context, 'utf8'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
}
