// STUB: `svc crawl`.
import { CliError } from './common.js';

export async function run(_argv: string[]): Promise<number> {
  throw new CliError('svc crawl is not implemented yet', 1);
}
