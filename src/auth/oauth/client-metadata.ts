// What a client may say about itself, whether it registers (RFC 7591) or publishes a Client ID Metadata Document:
// one schema and one set of rules for both, and the one rule by which a request's redirect URI matches a
// registered one. PURE.
import { z } from 'zod';
import { OAuthError } from './errors.js';

/** A client as the authorization server knows it (never with a secret: every client is public). */
export interface OAuthClient {
  client_id: string;
  client_name?: string;
  redirect_uris: string[];
  token_endpoint_auth_method: 'none';
  grant_types: string[];
  response_types: string[];
  client_id_issued_at?: number;
  client_uri?: string;
  logo_uri?: string;
  scope?: string;
  contacts?: string[];
  tos_uri?: string;
  policy_uri?: string;
  software_id?: string;
  software_version?: string;
}

const MAX_REDIRECT_URIS = 20;
const MAX_URI = 2000;
const MAX_NAME = 200;
const GRANT_TYPES = ['authorization_code', 'refresh_token'];
const LOOPBACK_HOSTS = ['127.0.0.1', 'localhost', '[::1]'];
/** Schemes that run or embed content instead of sending the browser somewhere. */
const UNSAFE_SCHEMES = ['javascript:', 'data:', 'vbscript:', 'file:', 'blob:'];
/** Bidi embedding, override and isolate controls and marks: they make a name read as something else. */
const BIDI_CONTROLS = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/u;
const CONTROL_CHARS = /\p{Cc}/u;
/**
 * Format characters (zero-width spaces and joiners, the word joiner, BOM, soft hyphen, tags) and the line and
 * paragraph separators: invisible, so "Clau\u200Bde" would show as "Claude".
 */
const INVISIBLE_CHARS = /[\p{Cf}\p{Zl}\p{Zp}]/u;
/** RFC 8252 section 7.1: an app's own scheme is a reverse domain name of its maker ("com.example.app"). */
const PRIVATE_USE_SCHEME = /^[a-z][a-z0-9+-]*(?:\.[a-z0-9+-]+)+:$/;

const text = (max: number) => z.string().max(max);
const MetadataSchema = z
  .object({
    redirect_uris: z.array(z.string().max(MAX_URI)).max(MAX_REDIRECT_URIS),
    token_endpoint_auth_method: text(100).optional(),
    grant_types: z.array(text(100)).max(10).optional(),
    response_types: z.array(text(100)).max(10).optional(),
    client_name: text(1000).optional(),
    client_uri: text(MAX_URI).optional(),
    logo_uri: text(MAX_URI).optional(),
    scope: text(1000).optional(),
    contacts: z.array(text(320)).max(10).optional(),
    tos_uri: text(MAX_URI).optional(),
    policy_uri: text(MAX_URI).optional(),
    software_id: text(200).optional(),
    software_version: text(200).optional(),
  })
  .strip();

export type ClientMetadata = z.infer<typeof MetadataSchema>;

/** Why a redirect URI may not be registered, or null. The rules of RFC 8252 and OAuth 2.1 section 2.3.1. */
export function redirectUriProblem(uri: string): OAuthError | null {
  const bad = (code: 'invalid_redirect_uri' | 'invalid_client_metadata', rule: string) =>
    new OAuthError(code, `redirect_uris: "${uri}" ${rule}`);
  if (/[\s\p{Cc}]/u.test(uri)) return bad('invalid_client_metadata', 'must not contain spaces or control characters');
  let u: URL;
  try {
    u = new URL(uri);
  } catch {
    return bad('invalid_client_metadata', 'is not a URL');
  }
  if (UNSAFE_SCHEMES.includes(u.protocol))
    return bad('invalid_client_metadata', `must not use the ${u.protocol} scheme`);
  if (u.username || u.password || /^[^:]+:\/\/[^/?#]*@/.test(uri))
    return bad('invalid_redirect_uri', 'must not carry a user name or password');
  if (uri.includes('#')) return bad('invalid_redirect_uri', 'must not have a fragment');
  if (u.protocol === 'http:' && !LOOPBACK_HOSTS.includes(u.hostname))
    return bad('invalid_redirect_uri', 'must use https (http only on a loopback address)');
  if (u.protocol !== 'https:' && u.protocol !== 'http:' && !PRIVATE_USE_SCHEME.test(u.protocol))
    return bad(
      'invalid_redirect_uri',
      `must use https, http on a loopback address, or an app's own scheme in reverse domain form (e.g. com.example.app:/callback), not ${u.protocol}`,
    );
  return null;
}

/** Why a client name may not be shown on the consent page, or null. */
export function clientNameProblem(name: string): OAuthError | null {
  const bad = (rule: string) => new OAuthError('invalid_client_metadata', `client_name: ${rule}`);
  if (name.length > MAX_NAME) return bad(`at most ${MAX_NAME} characters`);
  if (BIDI_CONTROLS.test(name))
    return bad('must not contain bidirectional control characters (they make a name read as another)');
  if (CONTROL_CHARS.test(name)) return bad('must not contain control characters');
  if (INVISIBLE_CHARS.test(name))
    return bad('must not contain invisible or format characters (zero-width, joiners, tags, line separators)');
  return null;
}

/** The loopback form of a redirect URI: scheme, host and the rest, the port aside (RFC 8252 section 7.3). */
function loopbackParts(uri: string): { head: string; rest: string } | null {
  const m = /^(https?:\/\/(?:127\.0\.0\.1|localhost|\[::1\]))(?::\d{1,5})?([/?][^#]*)?$/.exec(uri);
  return m ? { head: m[1]!, rest: m[2] ?? '' } : null;
}

/**
 * Whether a request's redirect URI is this registered one: the same string, character for character; only a
 * loopback URI's port may differ (a native app gets its port from the system when it starts).
 */
export function redirectUriMatches(requested: string, registered: string): boolean {
  if (requested === registered) return true;
  const a = loopbackParts(requested);
  const b = loopbackParts(registered);
  return a !== null && b !== null && a.head === b.head && a.rest === b.rest;
}

/**
 * Checks what a client says about itself and returns the client svc keeps. `secretRefused`: a Client ID Metadata
 * Document may not ask for a secret-based method (there is no secret to share); a registering client may, and is
 * made public like every other.
 */
export function checkClientMetadata(
  input: unknown,
  clientId: string,
  opts: { secretRefused: boolean; nameRequired: boolean },
): OAuthClient {
  const parsed = MetadataSchema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new OAuthError('invalid_client_metadata', `${issue.path.join('.') || 'metadata'}: ${issue.message}`);
  }
  const m = parsed.data;
  if (m.redirect_uris.length === 0)
    throw new OAuthError('invalid_redirect_uri', 'redirect_uris: at least one is required');
  for (const uri of m.redirect_uris) {
    const problem = redirectUriProblem(uri);
    if (problem) throw problem;
  }
  if (m.client_name !== undefined) {
    const problem = clientNameProblem(m.client_name);
    if (problem) throw problem;
  }
  if (opts.nameRequired && !m.client_name?.trim())
    throw new OAuthError('invalid_client_metadata', 'client_name: is required');
  if (m.grant_types?.some((g) => !GRANT_TYPES.includes(g))) {
    throw new OAuthError(
      'invalid_client_metadata',
      'grant_types: only authorization_code and refresh_token are supported',
    );
  }
  if (m.response_types?.some((r) => r !== 'code'))
    throw new OAuthError('invalid_client_metadata', 'response_types: only code is supported');
  const method = m.token_endpoint_auth_method;
  if (opts.secretRefused && method !== undefined && method !== 'none') {
    throw new OAuthError(
      'invalid_client_metadata',
      method.startsWith('client_secret')
        ? `token_endpoint_auth_method: "${method}" needs a shared secret, which a metadata document cannot have (use "none")`
        : `token_endpoint_auth_method: "${method}" is not supported (use "none": clients prove themselves with PKCE)`,
    );
  }
  return {
    ...m,
    client_id: clientId,
    token_endpoint_auth_method: 'none',
    grant_types: GRANT_TYPES,
    response_types: ['code'],
  };
}
