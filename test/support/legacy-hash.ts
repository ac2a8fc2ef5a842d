// A password hash in today's stored format made with chosen scrypt parameters, computed here rather than by
// src/auth: it stands for a hash an older svc stored (N = 2^15 until the parameters were raised).
import { randomBytes, scryptSync } from 'node:crypto';

export function scryptHashWith(password: string, N: number): string {
  const salt = randomBytes(16);
  const key = scryptSync(password.normalize('NFC'), salt, 32, { N, r: 8, p: 1, maxmem: 256 * N * 8 });
  return `scrypt$${N}$8$1$${salt.toString('base64')}$${key.toString('base64')}`;
}
