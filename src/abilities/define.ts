// How an ability is written: its descriptor (zod schemas, annotations, capability) plus the function it runs.
import { z } from 'zod';
import type { TargetConfig } from '../model/config.js';
import { checkSiteUrl } from '../model/site-urls.js';
import type { User } from '../model/users.js';
import type { SvcFunctions } from './functions.js';
import type { Ability, ExecuteContext, InputIssue, JsonSchema } from './types.js';

export const SVC_CATEGORY = 'svc';

/** What an ability's function may use: the plain functions, and the config's targets for input checks. */
export interface AbilityDeps {
  fns: SvcFunctions;
  targets: readonly TargetConfig[];
}

export interface InputCheckOptions {
  /** Whether messages may name configured targets: only to a caller who holds the ability's capability. */
  revealTargets: boolean;
}

export interface RunContext {
  /** Always set: the registry refuses to run without a permitted user. */
  user: User;
  deps: AbilityDeps;
  onProgress?: ExecuteContext['onProgress'];
  signal?: AbortSignal;
}

export interface AbilityDefinition<I extends z.ZodType = z.ZodType, O extends z.ZodType = z.ZodType> extends Ability {
  inputSchema: I;
  outputSchema: O;
  /** Input rules that need the config (e.g. URLs on a configured target); part of input validation. */
  checkInput?(input: z.output<I>, deps: AbilityDeps, check: InputCheckOptions): InputIssue[];
  run(input: z.output<I>, ctx: RunContext): Promise<z.input<O>>;
}

type DefinitionInput<I extends z.ZodType, O extends z.ZodType> = Omit<
  AbilityDefinition<I, O>,
  'inputJsonSchema' | 'outputJsonSchema' | 'category'
>;

/** Fills in the category and the JSON Schemas (made once, here, from the zod schemas). */
export function defineAbility<I extends z.ZodType, O extends z.ZodType>(
  def: DefinitionInput<I, O>,
): AbilityDefinition<I, O> {
  return {
    ...def,
    category: SVC_CATEGORY,
    inputJsonSchema: z.toJSONSchema(def.inputSchema, { io: 'input' }) as JsonSchema,
    outputJsonSchema: z.toJSONSchema(def.outputSchema, { io: 'output' }) as JsonSchema,
  };
}

/** Input rule shared by manual-crawl and delete-pages: every URL on a configured target (the one rule of model/site-urls). */
export function urlsOnTargets(
  urls: readonly string[],
  targets: readonly TargetConfig[],
  check: InputCheckOptions,
): InputIssue[] {
  // Without configured targets (a remote backend) the upstream service decides.
  if (!targets.length) return [];
  const issues: InputIssue[] = [];
  urls.forEach((u, i) => {
    const r = checkSiteUrl(u, targets, { revealTargets: check.revealTargets });
    if (typeof r === 'string') issues.push({ path: `urls[${i}]`, message: r });
  });
  return issues;
}
