// What every console page and action is given and answers: the signed-in user, the project shown, the form
// token; a page's content, or after an action the page to go to next.
import { escapeHtml as e } from '../../../lib/escape-html.js';
import { BackendError } from '../../../model/errors.js';
import type { User } from '../../../model/users.js';
import type { ConsoleProject } from '../deps.js';
import type { PageContent } from '../layout.js';

export interface PageCtx {
  user: User;
  project: ConsoleProject;
  csrf: string;
  url: URL;
}

/** After an action: go to a page (303, so a reload does not post again), or show one with this status. */
export type ActionOutcome = { redirect: string } | { status: number; page: PageContent };

/** A backend refusal a person can act on (bad input, a conflict, not found) as its message; anything else is thrown. */
export function refusalMessage(err: unknown): { status: number; message: string } {
  if (err instanceof BackendError && err.status < 500) return { status: err.status, message: err.message };
  throw err;
}

/** A date as stored (ISO 8601) in a <time> element, or a dash. */
export function when(iso: string | null | undefined): string {
  return iso ? `<time datetime="${e(iso)}">${e(iso.replace('T', ' ').replace(/\.\d+Z$|Z$/, ' UTC'))}</time>` : '–';
}

/** A table with a header row; cells are HTML already escaped. */
export function table(id: string, head: readonly string[], rows: readonly string[][], empty: string): string {
  if (rows.length === 0) return `<p class="muted" id="${id}-empty">${e(empty)}</p>`;
  return `<div class="table-wrap"><table id="${id}"><thead><tr>${head.map((h) => `<th scope="col">${e(h)}</th>`).join('')}</tr></thead>
<tbody>${rows.map((r) => `<tr>${r.map((c) => `<td>${c}</td>`).join('')}</tr>`).join('\n')}</tbody></table></div>`;
}
