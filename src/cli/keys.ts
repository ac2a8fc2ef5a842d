// STUB: `svc keys`.
import { CliError } from './common.js';

export async function run(_argv: string[]): Promise<number> {
  throw new CliError('svc keys is not implemented yet', 1);
}
