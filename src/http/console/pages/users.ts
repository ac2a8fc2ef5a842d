// Users (administrators only): who may sign in and with which role; add one with a sign-in password. The same
// rules as `svc users add` and `svc users set-password`.
import { escapeHtml as e } from '../../../lib/escape-html.js';
import { ROLES, type User } from '../../../model/users.js';
import { hiddenCsrf, CONSOLE_PATH, type PageContent } from '../layout.js';
import { table } from './page.js';

export function usersPage(
  users: readonly User[],
  csrf: string,
  msg: { notice?: string | null; error?: string | null; login?: string } = {},
): PageContent {
  const roles = ROLES.map((r) => `<option value="${r}"${r === 'subscriber' ? ' selected' : ''}>${r}</option>`).join('');
  return {
    title: 'Users',
    notice: msg.notice,
    error: msg.error,
    body: `<h2>Users</h2>${table(
      'users',
      ['Login', 'Role'],
      users.map((u) => [e(u.login), e(u.role)]),
      'No users.',
    )}
<h2>Add a user</h2>
<form method="post" action="${CONSOLE_PATH}/users" id="add-user">${hiddenCsrf(csrf)}
<div class="row"><div class="field"><label for="new-login">Login</label><input type="text" id="new-login" name="login" value="${e(msg.login ?? '')}" autocapitalize="none" required></div>
<div class="field"><label for="new-role">Role</label><select id="new-role" name="role">${roles}</select></div>
<div class="field"><label for="new-password">Password (at least 8 characters)</label><input type="password" id="new-password" name="password" autocomplete="new-password" required></div></div>
<button type="submit" class="primary" id="add-user-button">Add user</button></form>`,
  };
}
