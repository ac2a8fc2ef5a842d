// How an ability is written: its descriptor (zod schemas, annotations, capability) plus the function it runs.
import { z } from 'zod';
import type { TargetConfig } from '../model/config.js';
import type { User } from '../model/users.js';
import type { SvcFunctions } from './functions.js';
import type { Ability, InputIssue, JsonSchema } from './types.js';

export const SVC_CATEGORY = 'svc';

/** What an ability's function may use: the plain functions, and the config's targets for input checks. */
export interface AbilityDeps {
  fns: SvcFunctions;
  targets: readonly TargetConfig[];
}

export interface RunContext {
  /** Always set: the registry refuses to run without a permitted user. */
  user: User;
  deps: AbilityDeps;
}

export interface AbilityDefinition<I extends z.ZodType = z.ZodType, O extends z.ZodType = z.ZodType> extends Ability {
  inputSchema: I;
  outputSchema: O;
  /** Input rules that need the config (e.g. URLs on a configured target); part of input validation. */
  checkInput?(input: z.output<I>, deps: AbilityDeps): InputIssue[];
  run(input: z.output<I>, ctx: RunContext): Promise<z.input<O>>;
}

type DefinitionInput<I extends z.ZodType, O extends z.ZodType> = Omit<AbilityDefinition<I, O>, 'inputJsonSchema' | 'outputJsonSchema' | 'category'>;

/** Fills in the category and the JSON Schemas (made once, here, from the zod schemas). */
export function defineAbility<I extends z.ZodType, O extends z.ZodType>(def: DefinitionInput<I, O>): AbilityDefinition<I, O> {
  return {
    ...def,
    category: SVC_CATEGORY,
    inputJsonSchema: z.toJSONSchema(def.inputSchema, { io: 'input' }) as JsonSchema,
    outputJsonSchema: z.toJSONSchema(def.outputSchema, { io: 'output' }) as JsonSchema,
  };
}

/** Input rule shared by manual-crawl and delete-pages: every URL on a configured target. */
export function urlsOnTargets(urls: readonly string[], targets: readonly TargetConfig[]): InputIssue[] {
  // Without configured targets (a remote backend) the upstream service decides.
  if (!targets.length) return [];
  // Origins normalise case and default ports on both sides.
  const allowed = targets.map((t) => new URL(`${t.scheme}://${t.host}`).origin);
  const issues: InputIssue[] = [];
  urls.forEach((u, i) => {
    let origin: string;
    try {
      origin = new URL(u).origin;
    } catch {
      return; // the schema already rejected it
    }
    if (!allowed.includes(origin)) issues.push({ path: `urls[${i}]`, message: `"${u}" is not on a configured target (${allowed.join(', ')})` });
  });
  return issues;
}
