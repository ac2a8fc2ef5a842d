// STUB: `svc report`.
import { CliError } from './common.js';

export async function run(_argv: string[]): Promise<number> {
  throw new CliError('svc report is not implemented yet', 1);
}
