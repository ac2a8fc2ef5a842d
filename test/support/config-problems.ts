// What a config's refusal lists (ConfigError.problems), or [] when the config parses: the config tests' one reader.
import { ConfigError, parseConfig } from '../../src/cli/load-config.js';

export function problemsOf(raw: unknown): string[] {
  try {
    parseConfig(raw);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  return [];
}
