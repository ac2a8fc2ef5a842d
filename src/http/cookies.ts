// Cookies of a request: the one parser of the Cookie header for every page that sets its own (the OAuth sign-in
// page, the console).

/** The Cookie header's name → value pairs (of a name sent twice, the last). */
export function parseCookies(header: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (header ?? '').split(';')) {
    const i = part.indexOf('=');
    if (i > 0) out[part.slice(0, i).trim()] = part.slice(i + 1).trim();
  }
  return out;
}
