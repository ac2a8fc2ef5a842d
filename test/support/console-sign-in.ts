// The console's sign-in as a browser does it over plain HTTP, for the tests that need no browser: the page (its form
// cookie and form token), then the form's post.
import { expect } from 'vitest';

/** A sign-in page's form: the cookie to send back and its one-use token. */
export interface SignInForm {
  cookie: string;
  csrf: string;
}

/** GET /console/: the form cookie (with the attributes it must have) and the token. */
export async function signInForm(base: string): Promise<SignInForm> {
  const r = await fetch(`${base}/console/`);
  expect(r.status).toBe(200);
  const html = await r.text();
  const set = r.headers.getSetCookie().find((c) => c.startsWith('svc_console_form='))!;
  expect(set).toMatch(/; Path=\/console; HttpOnly; SameSite=Strict; Max-Age=3600$/);
  return { cookie: set.split(';')[0]!, csrf: /name="csrf" value="([^"]+)"/.exec(html)![1]! };
}

/** Posts `form` to `base` (which may be another server than the one that issued it) with a login and password. */
export async function postSignIn(base: string, form: SignInForm, login: string, password: string) {
  const r = await fetch(`${base}/console/sign-in`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie: form.cookie, 'content-type': 'application/x-www-form-urlencoded', origin: base },
    body: new URLSearchParams({ csrf: form.csrf, login, password }),
  });
  return { status: r.status, headers: r.headers, text: await r.text() };
}

/** A whole sign-in: its status (303 signed in, 401 wrong password …). */
export async function consoleSignIn(base: string, login: string, password: string): Promise<number> {
  return (await postSignIn(base, await signInForm(base), login, password)).status;
}
