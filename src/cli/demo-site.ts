// STUB: `svc demo-site`.
import { CliError } from './common.js';

export async function run(_argv: string[]): Promise<number> {
  throw new CliError('svc demo-site is not implemented yet', 1);
}
