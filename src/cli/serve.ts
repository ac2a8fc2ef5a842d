// STUB: `svc serve`.
import { CliError } from './common.js';

export async function run(_argv: string[]): Promise<number> {
  throw new CliError('svc serve is not implemented yet', 1);
}
