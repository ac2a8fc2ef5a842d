// STUB: `svc search`.
import { CliError } from './common.js';

export async function run(_argv: string[]): Promise<number> {
  throw new CliError('svc search is not implemented yet', 1);
}
