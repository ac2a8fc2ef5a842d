// The host CMS's model as the ability layer sees it: users with roles, the capabilities roles grant.

export type Role = 'administrator' | 'editor' | 'author' | 'contributor' | 'subscriber';
export const ROLES: readonly Role[] = ['administrator', 'editor', 'author', 'contributor', 'subscriber'];

export type Capability = 'read' | 'manage_options' | 'read_private_posts';

export interface User {
  login: string;
  role: Role;
}

/** A /v1 API key as stored: never the key itself. */
export interface ApiKeyInfo {
  id: number;
  project: string;
  name: string;
  createdAt: string;
  /** The key's first characters (shown to tell keys apart; far too short to guess the rest), '' for older keys. */
  prefix: string;
  /** When /v1 last accepted it (to the minute), null if never. */
  lastUsedAt: string | null;
}

/** What revoking a key did. */
export type RevokeOutcome = 'revoked' | 'already_revoked' | 'not_found';
