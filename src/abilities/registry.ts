// The ability registry, behaving like the host CMS's abilities API: register/get/list, categories, and execute
// in the host's order — default input, input validation, permission check, the function, output validation.
import { BackendError } from '../model/errors.js';
import { userCan } from '../cms/roles.js';
import type { AbilityDefinition, AbilityDeps } from './define.js';
import { fromBackendError, inputIssues, invalidInput, invalidOutput, invalidPermissions } from './errors.js';
import { AbilityError, type AbilityRegistry, type ExecuteContext, type RegisteredAbility } from './types.js';

export const ABILITY_NAME_RE = /^[a-z0-9-]+\/[a-z0-9-]+$/;
export const CATEGORY_SLUG_RE = /^[a-z0-9-]+$/;

export interface AbilityCategory {
  slug: string;
  label: string;
  description: string;
}

export class Registry implements AbilityRegistry {
  private readonly abilities = new Map<string, { def: AbilityDefinition; pub: RegisteredAbility }>();
  private readonly categoryMap = new Map<string, AbilityCategory>();

  constructor(private readonly deps: AbilityDeps) {}

  registerCategory(category: AbilityCategory): void {
    if (!CATEGORY_SLUG_RE.test(category.slug))
      throw new Error(`category "${category.slug}": must match ${CATEGORY_SLUG_RE}`);
    if (this.categoryMap.has(category.slug)) throw new Error(`category "${category.slug}" is already registered`);
    this.categoryMap.set(category.slug, category);
  }

  register(def: AbilityDefinition): RegisteredAbility {
    if (!ABILITY_NAME_RE.test(def.name))
      throw new Error(`ability "${def.name}": name must match ${ABILITY_NAME_RE} (namespace/name)`);
    if (this.abilities.has(def.name)) throw new Error(`ability "${def.name}" is already registered`);
    if (!this.categoryMap.has(def.category))
      throw new Error(`ability "${def.name}": category "${def.category}" is not registered`);
    if (def.inputJsonSchema.type !== 'object')
      throw new Error(`ability "${def.name}": the input schema must describe an object`);
    // The published descriptor: no run function, no config.
    const pub: RegisteredAbility = {
      name: def.name,
      label: def.label,
      description: def.description,
      category: def.category,
      capability: def.capability,
      annotations: { ...def.annotations },
      inputSchema: def.inputSchema,
      outputSchema: def.outputSchema,
      inputJsonSchema: def.inputJsonSchema,
      outputJsonSchema: def.outputJsonSchema,
      execute: (input, ctx) => this.execute(def.name, input, ctx),
    };
    this.abilities.set(def.name, { def, pub });
    return pub;
  }

  list(): RegisteredAbility[] {
    return [...this.abilities.values()].map((a) => a.pub);
  }

  get(name: string): RegisteredAbility | undefined {
    return this.abilities.get(name)?.pub;
  }

  categories(): AbilityCategory[] {
    return [...this.categoryMap.values()];
  }

  async execute(name: string, input: unknown, ctx: ExecuteContext): Promise<unknown> {
    const entry = this.abilities.get(name);
    if (!entry) throw new AbilityError('ability_not_found', `no ability named "${name}"`, 404);
    const { def } = entry;

    // 1. An absent input takes the input schema's default, when it has one; otherwise it is an empty object, so
    // the caller hears which fields are required rather than that "input" is not an object.
    if (input === undefined || input === null)
      input = 'default' in def.inputJsonSchema ? structuredClone(def.inputJsonSchema.default) : {};

    // 2. Input validation: the schema, then rules that need the config.
    const parsed = def.inputSchema.safeParse(input);
    if (!parsed.success) throw invalidInput(name, inputIssues(parsed.error, input));
    const extra = def.checkInput?.(parsed.data, this.deps, { revealTargets: userCan(ctx.user, def.capability) }) ?? [];
    if (extra.length) throw invalidInput(name, extra);

    // 3. Permission check against the current user.
    if (!ctx.user || !userCan(ctx.user, def.capability))
      throw invalidPermissions(name, def.capability, ctx.user, ctx.signInHint);

    // 4. The function.
    let result: unknown;
    try {
      result = await def.run(parsed.data, {
        user: ctx.user,
        deps: this.deps,
        onProgress: ctx.onProgress,
        signal: ctx.signal,
      });
    } catch (err) {
      if (err instanceof BackendError) throw fromBackendError(name, err);
      throw err;
    }

    // 5. Output validation.
    const out = def.outputSchema.safeParse(result);
    if (!out.success) throw invalidOutput(name, inputIssues(out.error, result));
    return out.data;
  }
}
