// STUB: `svc posts`.
import { CliError } from './common.js';

export async function run(_argv: string[]): Promise<number> {
  throw new CliError('svc posts is not implemented yet', 1);
}
