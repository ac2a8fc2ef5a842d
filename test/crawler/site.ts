// bench/workers.ts still imports the test site from here; the site lives in test/support/site.ts.
export * from '../support/site.js';
