// `svc users remove LOGIN`, run in this process (its output and exit status are the subject, not the process): the
// user goes with their console sessions and OAuth tokens (it says how many), an unknown login exits 1 naming it, a
// missing LOGIN exits 2, and the login can be added again afresh.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../support/app.js';
import { runHere } from '../support/cli.js';

describe('svc users remove', () => {
  it('removes a user with their sessions and tokens, refuses an unknown login, and lets the login be added again', async () => {
    const dir = tempDir('svc-users-remove-');
    const config = join(dir, 'svc.json');
    writeFileSync(config, JSON.stringify({ data_dir: join(dir, 'data') }));
    expect((await runHere(['users', 'add', 'bob', '--role', 'subscriber', '--config', config])).status).toBe(0);
    const removed = await runHere(['users', 'remove', 'bob', '--config', config]);
    expect(removed.status).toBe(0);
    expect(removed.stderr).toContain('removed "bob" with 0 console session(s) and 0 OAuth token(s)');
    const again = await runHere(['users', 'remove', 'bob', '--config', config]);
    expect(again.status).toBe(1);
    expect(again.stderr).toContain('login "bob": no such user');
    expect((await runHere(['users', 'remove', '--config', config])).status).toBe(2);
    // Gone: the login is free to be added again.
    const readded = await runHere(['users', 'add', 'bob', '--role', 'administrator', '--config', config]);
    expect(readded.status, readded.stderr).toBe(0);
  }, 300_000);
});
