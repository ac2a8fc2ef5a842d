// The `projects` form of the config: each project's own targets, schedule and webhooks; the errors of a bad one
// name the field and the rule; the single form is what it was.
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/cli/load-config.js';
import { problemsOf } from '../support/config-problems.js';
import { forProject, projectsOf, type Config } from '../../src/model/config.js';

const A = 'sitea001:eu-north-1';
const B = 'siteb002:us-east-1';

describe('config: projects', () => {
  it('reads several projects, each with its own targets, schedule and webhooks; the first is the top-level one', () => {
    const c = parseConfig({
      external_cache_max_age: '2h',
      projects: [
        { public_token: A, targets: [{ host: 'a.example' }], schedule: { full: '0 3 * * 1' } },
        {
          public_token: B,
          targets: [{ host: 'b.example', track_links: 'all' }],
          webhooks: [{ url: 'https://hooks.example.org/b', secret: 'x'.repeat(16) }],
        },
      ],
    });
    expect(projectsOf(c).map((p) => p.public_token)).toEqual([A, B]);
    expect(c.project.public_token).toBe(A);
    expect(c.targets.map((t) => t.host)).toEqual(['a.example']);
    expect(c.schedule).toEqual({ full: '0 3 * * 1' });
    expect(c.webhooks).toEqual([]);
    const b = forProject(c, B) as Config;
    expect(b.project.public_token).toBe(B);
    expect(b.targets[0]).toMatchObject({
      host: 'b.example',
      track_links: 'all',
      scheme: 'https',
      external_cache_max_age: '2h',
    });
    expect(b.schedule).toEqual({});
    expect(b.webhooks).toEqual([
      expect.objectContaining({
        url: 'https://hooks.example.org/b',
        events: ['crawl.completed', 'crawl.failed', 'crawl.stopped'],
      }),
    ]);
    expect(b.projects).toEqual([projectsOf(c)[1]]);
    expect((forProject(c) as Config).project.public_token).toBe(A);
    expect(forProject(c, 'nope0000:eu-north-1')).toBe(
      `no project "nope0000:eu-north-1" in this config; configured: ${A}, ${B}`,
    );
  });

  it('keeps the single form as it was: one project, no projects list', () => {
    const c = parseConfig({ project: { public_token: A }, targets: [{ host: 'a.example' }] });
    expect(c.projects).toBeNull();
    expect(projectsOf(c)).toEqual([{ public_token: A, targets: c.targets, schedule: {}, webhooks: [] }]);
    expect(parseConfig({}).project.public_token).toBe('demo1234:eu-north-1');
    expect(forProject(c, B)).toBe(`no project "${B}" in this config; configured: ${A}`);
    // A parsed single-form config written out (as the demo does) reads back the same.
    expect(parseConfig(JSON.parse(JSON.stringify(c)))).toEqual(c);
  });

  it('refuses two projects with one token, naming the entry and the rule', () => {
    expect(problemsOf({ projects: [{ public_token: A }, { public_token: B }, { public_token: A }] })).toEqual([
      `projects[2].public_token: must be unique: "${A}" is already the token of projects[0] (tokens that differ only in letter case count as the same)`,
    ]);
    expect(
      problemsOf({ projects: [{ public_token: 'SiteA001:eu-north-1' }, { public_token: 'sitea001:eu-north-1' }] }),
    ).toEqual([expect.stringMatching(/^projects\[1\]\.public_token: must be unique: .*letter case/)]);
  });

  it('refuses both forms at once, naming each single-form field', () => {
    const problems = problemsOf({
      project: { public_token: A },
      targets: [],
      webhooks: [],
      schedule: {},
      projects: [{ public_token: B }],
    });
    expect(problems).toEqual([
      'project: cannot be used together with "projects": each entry of projects has its own public_token',
      'targets: cannot be used together with "projects": give each project its own in its entry (projects[i].targets)',
      'schedule: cannot be used together with "projects": give each project its own in its entry (projects[i].schedule)',
      'webhooks: cannot be used together with "projects": give each project its own in its entry (projects[i].webhooks)',
    ]);
    expect(
      problemsOf({
        projects: [{ public_token: A }],
        api: { base_url: 'http://127.0.0.1:9', api_key: 'k', public_token: A },
      }),
    ).toEqual([
      'api.base_url: cannot be used together with "projects": a remote /v1 service serves one project, so use the single "project" form',
    ]);
  });

  it('names the bad field of an entry', () => {
    const text = problemsOf({
      projects: [
        { public_token: 'nocolon', targets: [{ host: 'a.example' }] },
        { targets: [{ host: 'http://b.example/' }] },
        { public_token: B, schedule: { full: 'soon' }, webhooks: [{ url: 'ftp://x', secret: 'short' }], extra: 1 },
      ],
    }).join('\n');
    expect(text).toContain('projects[0].public_token: must have the form <id>:<region>');
    expect(text).toContain("projects[1].public_token: is required: the project's <id>:<region>");
    expect(text).toContain('projects[1].targets[0].host: must be a host name or host:port');
    expect(text).toContain('projects[2].schedule.full: must be a cron expression');
    expect(text).toContain('projects[2].webhooks[0].url: must be a full http(s) URL');
    expect(text).toContain('projects[2].webhooks[0].secret: must be at least 16 characters');
    expect(text).toContain('projects[2]: unknown field(s) "extra"');
    expect(
      problemsOf({
        projects: [
          { public_token: A },
          { public_token: B, webhooks: [{ url: 'http://127.0.0.1:9/hook', secret: 'x'.repeat(16) }] },
        ],
      }),
    ).toEqual([
      'projects[1].webhooks[0].url: 127.0.0.1 is a loopback address: set "allow_private": true on this webhook to send to it',
    ]);
    expect(problemsOf({ projects: [] })).toEqual(['projects: must list at least one project']);
    expect(problemsOf({ projects: {} })).toEqual([
      'projects: must be an array of {public_token, targets, schedule, webhooks}',
    ]);
  });
});
