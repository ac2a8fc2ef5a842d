// The GitHub Action (action.yml) run as a runner runs it: its `run:` steps in bash, with a runner's environment
// (GITHUB_WORKSPACE, GITHUB_STEP_SUMMARY, GITHUB_ENV, RUNNER_TEMP) and its inputs, against the built svc here
// (the install step's `npm ci` is what a runner adds; SVC_BIN is what it leaves behind).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { tempDir } from '../support/app.js';
import { ROOT, SERVER_JS } from '../support/paths.js';

interface Step {
  id?: string;
  name?: string;
  uses?: string;
  run?: string;
  shell?: string;
  env?: Record<string, string>;
  with?: Record<string, unknown>;
  'working-directory'?: string;
}

interface Action {
  inputs: Record<string, { required?: boolean; default?: string }>;
  runs: { using: string; steps: Step[] };
}

const action = parse(readFileSync(join(ROOT, 'action.yml'), 'utf8')) as Action;

/** `${{ inputs.x }}` and `${{ github.workspace }}` as the runner fills them in. */
function expand(text: string, inputs: Record<string, string>, workspace: string): string {
  return text.replace(/\$\{\{\s*([\w.-]+)\s*\}\}/g, (_m, expr: string) => {
    if (expr.startsWith('inputs.')) {
      const name = expr.slice('inputs.'.length);
      return inputs[name] ?? action.inputs[name]?.default ?? '';
    }
    if (expr === 'github.workspace') return workspace;
    if (expr === 'github.action_path') return ROOT;
    throw new Error(`unexpected expression ${expr}`);
  });
}

/**
 * Runs the Action's steps but the install (a runner's npm ci of this repository) on a workspace holding the test
 * site in public/ (what a checkout and a build would leave): the last step's status, the step summary, stderr.
 */
function runAction(inputs: Record<string, string>): {
  status: number | null;
  summary: string;
  stderr: string;
  workspace: string;
} {
  const workspace = tempDir('svc-action-ws-');
  writeSite(workspace);
  const temp = tempDir('svc-action-tmp-');
  const summary = join(temp, 'step-summary.md');
  const envFile = join(temp, 'github-env');
  writeFileSync(summary, '');
  writeFileSync(envFile, `SVC_BIN=${SERVER_JS}\n`);
  let status: number | null = 0;
  let stderr = '';
  for (const step of action.runs.steps) {
    if (!step.run || step.id === 'install') continue;
    const env: NodeJS.ProcessEnv = {
      ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('SVC_'))),
      PATH: `${dirname(process.execPath)}:${process.env.PATH}`,
      GITHUB_ACTIONS: 'true',
      GITHUB_WORKSPACE: workspace,
      GITHUB_STEP_SUMMARY: summary,
      GITHUB_ENV: envFile,
      RUNNER_TEMP: temp,
    };
    // What earlier steps put in GITHUB_ENV.
    for (const line of readFileSync(envFile, 'utf8').split('\n')) {
      const eq = line.indexOf('=');
      if (eq > 0) env[line.slice(0, eq)] = line.slice(eq + 1);
    }
    for (const [k, v] of Object.entries(step.env ?? {})) env[k] = expand(v, inputs, workspace);
    const cwd = step['working-directory'] ? expand(step['working-directory'], inputs, workspace) : workspace;
    const r = spawnSync(step.shell ?? 'bash', ['-e', '-c', step.run], { cwd, env, encoding: 'utf8', timeout: 120_000 });
    status = r.status;
    stderr += r.stderr;
    if (status !== 0) break;
  }
  return { status, summary: readFileSync(summary, 'utf8'), stderr, workspace };
}

function writeSite(workspace: string): void {
  mkdirSync(join(workspace, 'public'), { recursive: true });
  writeFileSync(
    join(workspace, 'public', 'index.html'),
    '<!doctype html><title>Home</title><a href="about">About</a> <a href="https://site.example/gone.html">Gone</a>',
  );
  writeFileSync(join(workspace, 'public', 'about.html'), '<!doctype html><title>About</title><a href="/">Home</a>');
}

describe('action.yml', { timeout: 120_000 }, () => {
  it('is a composite action on Node 24 with the inputs path-or-url, fail-on, base-url and sarif', () => {
    expect(action.runs.using).toBe('composite');
    expect(Object.keys(action.inputs).sort()).toEqual(['base-url', 'fail-on', 'path-or-url', 'sarif']);
    expect(action.inputs['path-or-url']!.required).toBe(true);
    const setup = action.runs.steps.find((s) => s.uses?.startsWith('actions/setup-node@'));
    expect(setup?.with?.['node-version']).toBe(24);
    const install = action.runs.steps.find((s) => s.id === 'install');
    expect(install?.run).toContain('npm ci');
    expect(install?.run).toContain('SVC_BIN=');
  });

  it('writes the Markdown report to the step summary and SARIF where asked; fails on a broken link', () => {
    const run = runAction({ 'path-or-url': 'public', 'base-url': 'https://site.example/', sarif: 'links.sarif' });
    expect(run.status, run.stderr).toBe(1);
    expect(run.stderr).toContain('svc links: failing on not_found');
    expect(run.summary).toContain('https://site.example/gone.html');
    expect(run.summary).toMatch(/checked at http:\/\/127\.0\.0\.1:\d+\/gone\.html/);
    const sarif = JSON.parse(readFileSync(join(run.workspace, 'links.sarif'), 'utf8'));
    expect(sarif.version).toBe('2.1.0');
    expect(JSON.stringify(sarif.runs[0].results)).toContain('gone.html');
  });

  it('passes when no fail-on reason is present, and writes no SARIF file unless asked', () => {
    // Without base-url the absolute link is an external one; failing on redirects only, nothing fails.
    const run = runAction({ 'path-or-url': 'public', 'base-url': 'https://site.example/', 'fail-on': 'redirect' });
    expect(run.status, run.stderr).toBe(0);
    expect(run.summary).toContain('gone.html');
    expect(existsSync(join(run.workspace, 'links.sarif'))).toBe(false);
  });
});
