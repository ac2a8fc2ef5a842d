// The terminal form of a log line: short, readable, secrets still redacted, nothing dropped.
import { describe, expect, it } from 'vitest';
import { createLogger, prettyLogLine } from '../../src/lib/log.js';

describe('prettyLogLine', () => {
  it('gives time, level, message and the other fields, without pid, hostname and the svc tag', () => {
    const time = new Date(2026, 3, 30, 9, 5, 7).getTime();
    const line = JSON.stringify({
      level: 40,
      time,
      pid: 9,
      hostname: 'h',
      svc: 'svc',
      crawl: 3,
      host: 'example.org',
      why: 'two words',
      msg: 'slow host',
    });
    expect(prettyLogLine(`${line}\n`)).toBe('09:05:07 WARN  slow host crawl=3 host=example.org why="two words"');
  });

  it('passes a line that is not a JSON object through as it was', () => {
    expect(prettyLogLine('plain text\n')).toBe('plain text');
    expect(prettyLogLine('[1,2]')).toBe('[1,2]');
  });

  it('redacts a token on a logger writing to a sink, as on stderr', () => {
    const lines: string[] = [];
    createLogger('info', { write: (l) => lines.push(l) }).info({ token: 'svc_user_secret', user: 'ann' }, 'signed in');
    expect(lines).toHaveLength(1);
    const pretty = prettyLogLine(lines[0]!);
    expect(pretty).toMatch(/^\d\d:\d\d:\d\d INFO {2}signed in token=\[redacted\] user=ann$/);
    expect(lines[0]).not.toContain('svc_user_secret');
  });
});
