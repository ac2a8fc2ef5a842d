// Which addresses the crawler may connect to. PURE: the fetch layer asks `check` at connect time, after DNS,
// for every hop of every request, so a name or a redirect cannot lead it somewhere the policy forbids.
// Non-public addresses (loopback, private, link-local incl. cloud metadata, unique-local, CGNAT, …) are
// refused unless the connection is to a configured target's own host:port that lives there.
import { isIP } from 'node:net';

export type AddressClass =
  | 'public'
  | 'loopback'
  | 'private'
  | 'link_local' // includes the cloud metadata address 169.254.169.254
  | 'unique_local'
  | 'shared' // 100.64.0.0/10, carrier-grade NAT (also Alibaba's metadata address)
  | 'unspecified'
  | 'multicast'
  | 'reserved'
  | 'invalid';

function v4ToInt(ip: string): number {
  const p = ip.split('.').map(Number);
  return ((p[0]! << 24) >>> 0) + (p[1]! << 16) + (p[2]! << 8) + p[3]!;
}

const V4_RANGES: [string, number, AddressClass][] = [
  ['0.0.0.0', 8, 'unspecified'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'shared'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link_local'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'reserved'],
  ['192.0.2.0', 24, 'reserved'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'reserved'],
  ['198.51.100.0', 24, 'reserved'],
  ['203.0.113.0', 24, 'reserved'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'],
];

function classifyV4(ip: string): AddressClass {
  const n = v4ToInt(ip);
  for (const [base, bits, cls] of V4_RANGES) {
    const mask = bits === 0 ? 0 : (~0 << (32 - bits)) >>> 0;
    if ((n & mask) >>> 0 === (v4ToInt(base) & mask) >>> 0) return cls;
  }
  return 'public';
}

/** Eight 16-bit groups of an IPv6 address (an embedded IPv4 tail becomes the last two groups). */
function v6Groups(ip: string): number[] | null {
  let s = ip.toLowerCase().split('%')[0]!;
  const lastColon = s.lastIndexOf(':');
  const maybeV4 = s.slice(lastColon + 1);
  if (maybeV4.includes('.')) {
    if (isIP(maybeV4) !== 4) return null;
    const n = v4ToInt(maybeV4);
    s = `${s.slice(0, lastColon + 1)}${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const double = s.indexOf('::');
  let groups: string[];
  if (double < 0) {
    groups = s.split(':');
  } else {
    const a = s
      .slice(0, double)
      .split(':')
      .filter((x) => x !== '');
    const b = s
      .slice(double + 2)
      .split(':')
      .filter((x) => x !== '');
    const fill = 8 - a.length - b.length;
    if (fill < 1) return null;
    groups = [...a, ...Array<string>(fill).fill('0'), ...b];
  }
  if (groups.length !== 8) return null;
  const nums = groups.map((g) => (/^[0-9a-f]{1,4}$/.test(g) ? parseInt(g, 16) : NaN));
  return nums.some((x) => Number.isNaN(x)) ? null : nums;
}

function classifyV6(ip: string): AddressClass {
  const g = v6Groups(ip);
  if (g?.length !== 8) return 'invalid';
  if (g.every((x) => x === 0)) return 'unspecified';
  if (g.slice(0, 7).every((x) => x === 0) && g[7] === 1) return 'loopback';
  // IPv4-mapped (::ffff:a.b.c.d) and IPv4-compatible (::a.b.c.d): judge the IPv4 address inside.
  if (g.slice(0, 5).every((x) => x === 0) && (g[5] === 0xffff || g[5] === 0)) {
    const v4 = `${g[6]! >>> 8}.${g[6]! & 0xff}.${g[7]! >>> 8}.${g[7]! & 0xff}`;
    return classifyV4(v4);
  }
  // NAT64 (64:ff9b::/96) also embeds an IPv4 address.
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) {
    return classifyV4(`${g[6]! >>> 8}.${g[6]! & 0xff}.${g[7]! >>> 8}.${g[7]! & 0xff}`);
  }
  if ((g[0]! & 0xfe00) === 0xfc00) return 'unique_local';
  if ((g[0]! & 0xffc0) === 0xfe80) return 'link_local';
  if ((g[0]! & 0xffc0) === 0xfec0) return 'private'; // deprecated site-local
  if ((g[0]! & 0xff00) === 0xff00) return 'multicast';
  if (g[0] === 0x2001 && g[1] === 0xdb8) return 'reserved';
  return 'public';
}

/** What kind of address `ip` is (IPv4 or IPv6 literal, brackets allowed). */
export function classifyAddress(ip: string): AddressClass {
  const s = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip;
  const v = isIP(s.split('%')[0]!);
  if (v === 4) return classifyV4(s);
  if (v === 6) return classifyV6(s);
  return 'invalid';
}

/** "a private address", "an unspecified address": an address class as a message says it. */
export function addressClassText(cls: AddressClass): string {
  const name = cls === 'shared' ? 'shared (carrier-grade NAT)' : cls.replace('_', '-');
  return `${/^[aeiou]/.test(name) ? 'an' : 'a'} ${name} address`;
}

/** The crawler's rule, as a refusal states it. */
export const CRAWL_ADDRESS_RULE =
  "svc does not fetch loopback, private, link-local or other non-public addresses unless they are a configured target's host:port";

/**
 * Why the policy refuses `hostname:port` at `address`: it names the address and its kind, and the rule, because a
 * report shows this to someone who did not write the policy.
 */
export function refusalText(hostname: string, port: number, address: string, rule = CRAWL_ADDRESS_RULE): string {
  const host = bareHost(hostname);
  const ip = bareHost(address);
  const where =
    host === ip
      ? `${host}:${port} is ${addressClassText(classifyAddress(ip))}`
      : `${host}:${port} resolves to ${ip}, ${addressClassText(classifyAddress(ip))}`;
  return `${where}; ${rule}`;
}

export interface AddressPolicy {
  /** null when the connection may go ahead, else why not. `hostname` is the name the URL used. */
  check(hostname: string, port: number, address: string): string | null;
}

/** A host name in lower case, without the brackets of an IPv6 literal. */
export function bareHost(host: string): string {
  const h = host.toLowerCase();
  return h.startsWith('[') && h.endsWith(']') ? h.slice(1, -1) : h;
}

/**
 * The policy for a crawl: public addresses are fine; a non-public one only for a configured target's own
 * host:port (`allowed`: host[:port] strings with the scheme's default port made explicit by the caller).
 */
export function createAddressPolicy(
  allowed: Iterable<{ host: string; port: number }>,
  rule = CRAWL_ADDRESS_RULE,
): AddressPolicy {
  const ok = new Set<string>();
  for (const a of allowed) ok.add(`${bareHost(a.host)}|${a.port}`);
  return {
    check(hostname, port, address) {
      const cls = classifyAddress(address);
      if (cls === 'public') return null;
      if (ok.has(`${bareHost(hostname)}|${port}`)) return null;
      return refusalText(hostname, port, address, rule);
    },
  };
}

/** host and port of a target as the connector will see them. */
export function targetEndpoint(host: string, scheme: 'http' | 'https'): { host: string; port: number } {
  const u = new URL(`${scheme}://${host}/`);
  return { host: u.hostname, port: u.port ? Number(u.port) : scheme === 'https' ? 443 : 80 };
}
