// STUB: `svc mcp`.
import { CliError } from './common.js';

export async function run(_argv: string[]): Promise<number> {
  throw new CliError('svc mcp is not implemented yet', 1);
}
