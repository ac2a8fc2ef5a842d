// The ten svc abilities, registered in the category svc.
import type { AbilityDefinition } from './define.js';
import { SVC_CATEGORY } from './define.js';
import type { Registry } from './registry.js';
import { svcDeletePages } from './svc-delete-pages.js';
import { svcFullCrawl } from './svc-full-crawl.js';
import { svcGetCrawl } from './svc-get-crawl.js';
import { svcGetPage } from './svc-get-page.js';
import { svcGetPageMeta } from './svc-get-page-meta.js';
import { svcListPages } from './svc-list-pages.js';
import { svcLinkReport } from './svc-link-report.js';
import { svcManualCrawl } from './svc-manual-crawl.js';
import { svcPartialCrawl } from './svc-partial-crawl.js';
import { svcSearch } from './svc-search.js';

export const SVC_ABILITIES: readonly AbilityDefinition[] = [
  svcSearch,
  svcGetPage,
  svcListPages,
  svcGetPageMeta,
  svcLinkReport,
  svcFullCrawl,
  svcPartialCrawl,
  svcManualCrawl,
  svcDeletePages,
  svcGetCrawl,
];

export function registerSvcAbilities(registry: Registry): void {
  registry.registerCategory({
    slug: SVC_CATEGORY,
    label: 'Site search and link health',
    description: 'Search and read the site, read page meta and the broken-link report, and run crawls.',
  });
  for (const a of SVC_ABILITIES) registry.register(a);
}
