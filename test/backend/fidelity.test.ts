// Link-check fidelity end to end: loopback sites → crawl runner → SQLite → the link report in its REST and
// ability forms and as `svc report` prints it. Fragments, links in CSS, element and text, bot blocks, and the
// cache of external results across two crawls (requests counted on the external server).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toAbilityLinkReport } from '../../src/abilities/rest-to-ability.js';
import { CrawlRunner } from '../../src/backend/crawl-runs/runner.js';
import { buildLinkReport } from '../../src/backend/report/link-report.js';
import { formatLinkReport } from '../../src/backend/report/formats/index.js';
import { silentLogger } from '../../src/lib/log.js';
import type { TargetConfig } from '../../src/model/config.js';
import type { LinkReport, ReportLink } from '../../src/model/types.js';
import type { Store } from '../../src/store/sqlite/store.js';
import { html, send, startSite, target, type TestSite } from '../support/site.js';
import { tempStore } from '../support/stored.js';

const PROJECT = 'test1234:eu-north-1';

describe('link-check fidelity, end to end', () => {
  let site: TestSite;
  let ext: TestSite;
  let store: Store;
  let targets: TargetConfig[];
  let runner: CrawlRunner;
  let report: LinkReport;
  let u: (path: string) => string;

  const crawl = async () => {
    const rec = await runner.start({ mode: 'full' });
    const done = await runner.wait(rec.id);
    expect(done.status).toBe('completed');
  };

  beforeAll(async () => {
    ext = await startSite({ '/fine': html('fine'), '/gone': send(404, 'no') });
    site = await startSite({
      '/': (req, res, url) =>
        html(
          `<h1 id="top-heading">Home</h1>
           <a href="/guide#install">Install</a> <a href="/guide#legacy">Legacy anchor</a> <a href="/guide#uninstall">Uninstall</a>
           <a href="#top-heading">Back up</a> <a href="#nothing-here">Dead jump</a>
           <div style="background: url(/hero-missing.jpg)">hero</div>
           <img src="/photo-missing.jpg" alt="Team photo">
           <a href="/profile-999">Our profile</a> <a href="/shop">Shop</a>
           <a href="${ext.origin}/fine">Partner</a> <a href="${ext.origin}/gone">Old partner</a>`,
          {
            head: '<link rel="stylesheet" href="/site.css"><style>.logo { background: url("/logo-missing.svg") }</style>',
          },
        )(req, res, url),
      '/guide': html('<h2 id="install">Install</h2><a name="legacy"></a><p>text</p>'),
      '/site.css': send(200, '.banner { background: url(img/banner-missing.png) } .ok { background: url(/ok.png) }', {
        'content-type': 'text/css',
      }),
      '/ok.png': send(200, 'png', { 'content-type': 'image/png' }),
      '/profile-999': send(999, 'Request denied'),
      '/shop': send(403, '<title>Just a moment...</title>', { 'cf-mitigated': 'challenge' }),
    });
    u = (p) => `${site.origin}${p}`;
    ({ store } = tempStore());
    targets = [target({ host: site.host, check_fragments: true, use_sitemap: false })];
    runner = new CrawlRunner({
      store,
      project: PROJECT,
      targets,
      logger: silentLogger,
      addressPolicy: { allow: [ext.host] },
      fetcher: { maxRetries: 1, maxRetryWaitMs: 50 },
    });
    await crawl();
    report = await buildLinkReport(store.sql, PROJECT, targets, { limit: 1000 });
  });
  afterAll(async () => {
    await runner?.stopAll();
    store?.close();
    await site?.close();
    await ext?.close();
  });

  /** Every (page, link) of the REST report, by link URL. */
  const restLinks = (r: LinkReport): Map<string, ReportLink & { page: string; section: string }> => {
    const out = new Map<string, ReportLink & { page: string; section: string }>();
    for (const section of ['notFound', 'forbidden', 'serverError', 'redirect', 'unknown'] as const) {
      for (const p of r[section].pages) for (const l of p.links) out.set(l.url, { ...l, page: p.url, section });
    }
    return out;
  };

  it('reports missing fragments as not_found (200), with element and text', () => {
    const links = restLinks(report);
    expect(links.get(u('/guide#uninstall'))).toEqual({
      url: u('/guide#uninstall'),
      httpStatus: 200,
      message: 'missing fragment #uninstall',
      element: 'a',
      text: 'Uninstall',
      page: u('/'),
      section: 'notFound',
    });
    expect(links.get(u('/#nothing-here'))).toMatchObject({
      httpStatus: 200,
      message: 'missing fragment #nothing-here',
      text: 'Dead jump',
      section: 'notFound',
    });
    // Present as an id, as an <a name>, and on the same page: not reported.
    expect(links.has(u('/guide#install'))).toBe(false);
    expect(links.has(u('/guide#legacy'))).toBe(false);
    expect(links.has(u('/#top-heading'))).toBe(false);
  });

  it('reports broken links in the stylesheet, <style> and style="" with element css', () => {
    const links = restLinks(report);
    expect(links.get(u('/img/banner-missing.png'))).toMatchObject({
      page: u('/site.css'),
      element: 'css',
      text: '',
      httpStatus: 404,
      section: 'notFound',
    });
    expect(links.get(u('/logo-missing.svg'))).toMatchObject({ page: u('/'), element: 'css', section: 'notFound' });
    expect(links.get(u('/hero-missing.jpg'))).toMatchObject({ page: u('/'), element: 'css', section: 'notFound' });
    expect(links.get(u('/photo-missing.jpg'))).toMatchObject({ page: u('/'), element: 'img', text: 'Team photo' });
    expect(links.has(u('/ok.png'))).toBe(false);
  });

  it('marks bot blocks as blocked, keeping their reason', () => {
    const links = restLinks(report);
    expect(links.get(u('/shop'))).toMatchObject({
      section: 'forbidden',
      httpStatus: 403,
      blocked: true,
      message: 'blocked: 403 Forbidden (cf-mitigated: challenge)',
      text: 'Shop',
    });
    expect(links.get(u('/profile-999'))).toMatchObject({
      section: 'serverError',
      httpStatus: 999,
      blocked: true,
      text: 'Our profile',
    });
    expect(links.get(u('/profile-999'))!.message).toMatch(/^blocked: /);
    expect(links.get(u('/photo-missing.jpg'))).not.toHaveProperty('blocked');
  });

  it('carries element, text and blocked into the ability form and the text report', () => {
    const ability = toAbilityLinkReport(report);
    const shop = ability.links.find((l) => l.link === u('/shop'))!;
    expect(shop).toMatchObject({ page: u('/'), reason: 'forbidden', element: 'a', text: 'Shop', blocked: true });
    const frag = ability.links.find((l) => l.link === u('/guide#uninstall'))!;
    expect(frag).toMatchObject({
      reason: 'not_found',
      http_status: 200,
      element: 'a',
      text: 'Uninstall',
      blocked: false,
    });
    const text = formatLinkReport('text', report);
    expect(text).toContain(`${u('/guide#uninstall')}  (missing fragment #uninstall)  in <a> "Uninstall"`);
    expect(text).toMatch(/blocked: .*in <a> "Shop"/);
    expect(text).toContain(`on ${u('/site.css')}`);
  });

  it('reuses the ok external result on the second crawl and checks the broken one again', async () => {
    expect(ext.hitCount('/fine')).toBe(1);
    expect(ext.hitCount('/gone')).toBe(1);
    expect(restLinks(report).get(`${ext.origin}/gone`)).toMatchObject({ section: 'notFound', text: 'Old partner' });
    await crawl();
    expect(ext.hitCount('/fine')).toBe(1);
    expect(ext.hitCount('/gone')).toBe(2);
    const again = restLinks(await buildLinkReport(store.sql, PROJECT, targets, { limit: 1000 }));
    expect(again.get(`${ext.origin}/gone`)).toMatchObject({ section: 'notFound' });
    expect(again.has(`${ext.origin}/fine`)).toBe(false);
    // The rest of the report is as the first crawl left it.
    expect(again.get(u('/guide#uninstall'))).toMatchObject({ message: 'missing fragment #uninstall' });
    expect(again.get(u('/shop'))).toMatchObject({ blocked: true });
  });

  it('a manual crawl checks fragments on pages it does not fetch against their stored ids', async () => {
    const guideGets = site.hitCount('/guide', 'GET');
    const rec = await runner.start({ mode: 'manual', urls: [u('/')] });
    expect((await runner.wait(rec.id)).status).toBe('completed');
    // /guide was only checked (HEAD), not fetched: its ids come from the store.
    expect(site.hitCount('/guide', 'GET')).toBe(guideGets);
    const after = restLinks(await buildLinkReport(store.sql, PROJECT, targets, { limit: 1000 }));
    expect(after.get(u('/guide#uninstall'))).toMatchObject({
      message: 'missing fragment #uninstall',
      section: 'notFound',
    });
    expect(after.has(u('/guide#install'))).toBe(false);
    expect(after.has(u('/guide#legacy'))).toBe(false);
    const row = store.db
      .prepare('SELECT reason, crawl_id FROM link_outcomes WHERE url = ?')
      .get(u('/guide#install')) as { reason: string; crawl_id: number };
    expect(row).toEqual({ reason: 'ok', crawl_id: rec.id });
  });
});
