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
}
