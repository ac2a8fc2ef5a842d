// The frame of every console page: the project switcher, the pages this user may open, who is signed in and the
// sign-out form, then the page itself. Every value is escaped here or by the page that made the text.
import { userCan } from '../../cms/roles.js';
import { escapeHtml as e } from '../../lib/escape-html.js';
import type { User } from '../../model/users.js';

export const CONSOLE_PATH = '/console';

/** The console's pages of one project, in the order of its menu, and what each needs. */
export const PROJECT_PAGES = [
  { slug: '', label: 'Overview', need: 'manage_options' },
  { slug: 'crawls', label: 'Crawls', need: 'manage_options' },
  { slug: 'schedule', label: 'Schedule', need: 'manage_options' },
  { slug: 'report', label: 'Link report', need: 'manage_options' },
  { slug: 'changes', label: 'Changes', need: 'manage_options' },
  { slug: 'search', label: 'Search', need: 'read' },
  { slug: 'search-stats', label: 'Search analytics', need: 'manage_options' },
  { slug: 'keys', label: 'API keys', need: 'manage_options' },
  { slug: 'webhooks', label: 'Webhooks', need: 'manage_options' },
] as const;

export type PageSlug = (typeof PROJECT_PAGES)[number]['slug'];

export function projectPath(token: string, slug: string = ''): string {
  return `${CONSOLE_PATH}/p/${encodeURIComponent(token)}/${slug}`;
}

export function mayOpen(user: User, slug: PageSlug): boolean {
  return userCan(user, PROJECT_PAGES.find((p) => p.slug === slug)!.need);
}

/** Users is the administrators' page. */
export function mayManageUsers(user: User): boolean {
  return user.role === 'administrator';
}

/** The first page of a project this user may open (a subscriber's is Search). */
export function landingSlug(user: User): PageSlug {
  return PROJECT_PAGES.find((p) => mayOpen(user, p.slug))?.slug ?? 'search';
}

export interface Frame {
  user: User;
  csrf: string;
  projects: readonly string[];
  /** The project shown; null on pages of the whole service (Users). */
  project: string | null;
  /** The menu entry to mark: a page slug, or 'users'. */
  current: string;
}

export interface PageContent {
  title: string;
  /** HTML, escaped by its maker. */
  body: string;
  notice?: string | null;
  error?: string | null;
}

export function hiddenCsrf(csrf: string): string {
  return `<input type="hidden" name="csrf" value="${e(csrf)}">`;
}

function document(title: string, inner: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="same-origin"><title>${e(title)} · svc console</title>
<link rel="icon" type="image/svg+xml" href="${CONSOLE_PATH}/assets/favicon.svg">
<link rel="stylesheet" href="${CONSOLE_PATH}/assets/console.css"></head>
<body>${inner}<script src="${CONSOLE_PATH}/assets/console.js"></script></body></html>`;
}

export function messages(p: { notice?: string | null; error?: string | null }): string {
  return (
    (p.error ? `<p class="error" id="error" role="alert">${e(p.error)}</p>` : '') +
    (p.notice ? `<p class="notice" id="notice" role="status">${e(p.notice)}</p>` : '')
  );
}

export function renderFrame(f: Frame, page: PageContent): string {
  const project = f.project ?? f.projects[0] ?? '';
  const slug = f.current === 'users' ? '' : f.current;
  const switcher =
    f.projects.length > 1 || f.project === null
      ? `<form id="project-switch" method="get" action="${CONSOLE_PATH}/switch"><label for="project">Project</label>
<select id="project" name="project">${f.projects.map((t) => `<option value="${e(t)}"${t === f.project ? ' selected' : ''}>${e(t)}</option>`).join('')}</select>
<input type="hidden" name="page" value="${e(slug)}"><button type="submit">Open</button></form>`
      : `<span>Project <strong id="project-name">${e(project)}</strong></span>`;
  const links = PROJECT_PAGES.filter((p) => mayOpen(f.user, p.slug)).map(
    (p) =>
      `<a href="${projectPath(project, p.slug)}"${f.project !== null && f.current === p.slug ? ' aria-current="page"' : ''}>${e(p.label)}</a>`,
  );
  if (mayManageUsers(f.user))
    links.push(`<a href="${CONSOLE_PATH}/users"${f.current === 'users' ? ' aria-current="page"' : ''}>Users</a>`);
  return document(
    page.title,
    `<header class="top"><a class="brand" href="${CONSOLE_PATH}/">svc console</a>${switcher}
<span id="who">${e(f.user.login)} <span class="muted">(${e(f.user.role)})</span></span>
<form method="post" action="${CONSOLE_PATH}/sign-out">${hiddenCsrf(f.csrf)}<button type="submit" id="sign-out">Sign out</button></form></header>
<nav class="pages" aria-label="Pages">${links.join('')}</nav>
<main id="main"${f.current === 'report' ? ' class="wide"' : ''}><h1>${e(page.title)}</h1>${messages(page)}${page.body}</main>`,
  );
}

/** The sign-in page (no frame: nobody is signed in). */
export function renderSignIn(
  csrf: string,
  opts: { error?: string | null; notice?: string | null; login?: string },
): string {
  return document(
    'Sign in',
    `<main class="signin"><h1>Sign in to the svc console</h1>${messages(opts)}
<form method="post" action="${CONSOLE_PATH}/sign-in">${hiddenCsrf(csrf)}
<div class="field"><label for="login">Login</label><input type="text" id="login" name="login" value="${e(opts.login ?? '')}" autocomplete="username" autocapitalize="none" required></div>
<div class="field"><label for="password">Password</label><input type="password" id="password" name="password" autocomplete="current-password" required></div>
<button type="submit" class="primary" id="sign-in">Sign in</button></form>
<p class="muted">The same login and password as the OAuth sign-in (<code>svc users set-password LOGIN</code>).</p></main>`,
  );
}

/** A page of its own for an error that has no frame to show in (no session, unknown project). */
export function renderBare(title: string, message: string, link: { href: string; label: string }): string {
  return document(
    title,
    `<main class="signin"><h1>${e(title)}</h1>${messages({ error: message })}<p><a href="${e(link.href)}">${e(link.label)}</a></p></main>`,
  );
}
