// The shape of a known-item query set: one corpus (a manual from a Debian package, read from disk), whether the
// ranking may be tuned on it, and what a person would type with the page they want and why.

export interface KnownItem {
  query: string;
  /** The wanted page, relative to the manual's root. */
  page: string;
  why: string;
}

export interface Corpus {
  name: string;
  /** `tuning`: rules and weights may be chosen on it; `measured`: only ever measured (a change for it is tuning). */
  role: 'tuning' | 'measured';
  /** The manual's root directory (its HTML files, read with the crawler's own extractor). */
  root: string;
  /** The Debian package that installs it there. */
  debianPackage: string;
  /** Which files under the root are pages of the manual (paths relative to the root). */
  pages: (path: string) => boolean;
  items: KnownItem[];
}
