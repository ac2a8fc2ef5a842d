// Roles → capabilities, and who may read a post: the host CMS's rules, as pure functions.
import type { Capability, Role, User } from '../model/users.js';
import type { PostStatus } from '../model/posts.js';

export const ROLE_CAPABILITIES: Readonly<Record<Role, readonly Capability[]>> = {
  administrator: ['read', 'manage_options', 'read_private_posts'],
  editor: ['read', 'read_private_posts'],
  author: ['read'],
  contributor: ['read'],
  subscriber: ['read'],
};

export function userCan(user: User | null, capability: Capability): boolean {
  return user !== null && ROLE_CAPABILITIES[user.role].includes(capability);
}

/** Published posts are public; any other status only for its author and roles that read others' private posts. */
export function canReadPost(user: User | null, post: { status: PostStatus; author: string }): boolean {
  if (post.status === 'publish') return true;
  if (user === null) return false;
  return post.author === user.login || userCan(user, 'read_private_posts');
}
