// `svc mcp [--config F]`: MCP over stdio. The current user is the login in SVC_USER; without it every tool
// answers ability_invalid_permissions (tools/list still works). Nothing but protocol reaches stdout.
import { STOP_REASONS } from '../backend/crawl-runs/finish.js';
import { createLogger } from '../lib/log.js';
import { CliError, parse, readProjectConfig } from './common.js';
import type { AbilityHost } from '../abilities/runtime.js';
import type { Terminal } from './terminal.js';

export async function run(argv: string[], io: Terminal): Promise<number> {
  const { values } = parse(argv, {}, false);
  if (values.help) {
    io.stdout.write('usage: svc mcp [--config F] [--site URL]   (current user: SVC_USER=<login>)\n');
    return 0;
  }
  // A stray console.log anywhere below would corrupt the protocol stream.
  console.log = console.error;
  console.info = console.error;
  // The host side (posts, users, abilities, the tools) acts on the first project: only its database opens.
  const config = readProjectConfig(values, io);
  // Loaded after the config is known good, in parallel: the SDK and the engine are the bulk of start-up.
  const [{ loadApp }, { openAbilityHost }, { serveStdio }] = await Promise.all([
    import('../app/open-app.js'),
    import('../app/ability-host.js'),
    import('../mcp/stdio.js'),
  ]);
  const app = await loadApp(config, { logger: createLogger(config.log_level, io.stderr), env: io.env });
  let host: AbilityHost | undefined;
  try {
    host = await openAbilityHost(app);
    const login = io.env.SVC_USER?.trim() || null;
    const user = login ? await host.userByLogin(login) : null;
    if (login && !user)
      throw new CliError(
        `SVC_USER: no user with login "${login}" (add one with: svc users add ${login} --role administrator)`,
        2,
      );
    // Below host 6.9 openAbilityHost has already said why there are no abilities; the initialize or server/discover answer says it too.
    app.logger.info(
      { user: user?.login ?? null, tools: host.abilitiesEnabled ? host.registry.list().length : 0 },
      'mcp stdio ready',
    );
    const stop = (why: string) => {
      host?.close();
      void app.close(why).finally(() => process.exit(0));
    };
    process.once('SIGINT', () => stop(STOP_REASONS.interrupt));
    process.once('SIGTERM', () => stop(STOP_REASONS.terminate));
    const signInHint =
      'start `svc mcp` with SVC_USER=<login> in its environment (the MCP client config\'s "env"); add a user with: svc users add <login> --role administrator';
    await serveStdio({ host, user, logger: app.logger, signInHint });
    // The client went away: a crawl it started runs inside this process, so it stops here, and says why.
    host.close();
    await app.close(STOP_REASONS.clientClosed);
  } finally {
    host?.close();
    await app.close();
  }
  return 0;
}
