// Secrets (API keys, user tokens): made random, shown once, stored only as a sha256 hash, compared in constant time.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** A new secret such as `svc_key_…`: 32 random bytes, base64url. */
export function newSecret(prefix: string): string {
  return `${prefix}${randomBytes(32).toString('base64url')}`;
}

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** Constant-time comparison of two hex digests (of equal length by construction). */
export function sameHash(aHex: string, bHex: string): boolean {
  const a = Buffer.from(aHex, 'hex');
  const b = Buffer.from(bHex, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}
