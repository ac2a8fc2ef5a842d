// The SSRF guard at connect time: a connector that resolves a name itself and connects only to an address the
// policy allows (a check before the request would race a second lookup). The crawler's fetcher, the document fetch
// and the webhook deliverer all connect through it.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import { buildConnector } from '../lib/undici-agent.js';
import { bareHost, type AddressPolicy } from './address-policy.js';
import { BlockedError } from './fetch-errors.js';

export type HostLookup = (
  hostname: string,
  options: { all: true },
  callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

/**
 * A connector that resolves the name itself, asks the policy about every address, and connects to the one it
 * checked. `tls`: more options of the TLS connection (a test's own CA, say).
 */
export function guardedConnector(
  policy: AddressPolicy,
  connectTimeoutMs: number,
  lookup: HostLookup = dnsLookup,
  tls: buildConnector.BuildOptions = {},
): buildConnector.connector {
  const base = buildConnector({ ...tls, timeout: connectTimeoutMs });
  return (opts, callback) => {
    const name = bareHost(opts.hostname);
    const port = Number(opts.port) || (opts.protocol === 'https:' ? 443 : 80);
    const go = (addresses: { address: string; family: number }[]) => {
      for (const a of addresses) {
        const why = policy.check(name, port, a.address);
        if (why) return callback(new BlockedError(why), null);
      }
      if (!addresses.length)
        return callback(Object.assign(new Error(`cannot resolve ${name}`), { code: 'ENOTFOUND' }), null);
      // Connect to a checked address (no second lookup to race), the next one when it cannot be reached;
      // TLS still uses the name for SNI.
      const attempt = (i: number) => {
        base(
          { ...opts, hostname: addresses[i]!.address, servername: opts.servername ?? (isIP(name) ? undefined : name) },
          (err, socket) => {
            const code = (err as { code?: string } | null)?.code;
            if (
              err &&
              i + 1 < addresses.length &&
              (code === 'ECONNREFUSED' || code === 'ENETUNREACH' || code === 'EHOSTUNREACH' || code === 'EADDRNOTAVAIL')
            )
              return attempt(i + 1);
            if (err) return callback(err, null);
            callback(null, socket!);
          },
        );
      };
      attempt(0);
    };
    const family = isIP(name);
    if (family) return go([{ address: name, family }]);
    lookup(name, { all: true }, (err, addresses) => {
      if (err) return callback(err, null);
      go(addresses);
    });
  };
}
