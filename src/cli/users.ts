// STUB: `svc users`.
import { CliError } from './common.js';

export async function run(_argv: string[]): Promise<number> {
  throw new CliError('svc users is not implemented yet', 1);
}
