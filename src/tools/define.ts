// What turns an ability into an MCP tool. A tool file names its ability and decides the one hint the
// ability cannot know (openWorldHint); everything else — title, description, both schemas and the other
// three hints — is read from the ability at listing time, so there is one source of every schema.
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { AbilityError, type Ability, type AbilityRegistry, type JsonSchema } from '../abilities/types.js';
import type { User } from '../model/users.js';

export interface ToolSpec {
  /** MCP name: the ability name with its slash made a dash (MCP names allow no slash). */
  name: string;
  /** The svc/* ability the tool runs. */
  ability: string;
  /** True when a call reaches beyond this service's own data (fetches the site or the links on it). */
  openWorldHint: boolean;
}

export function defineTool(spec: Omit<ToolSpec, 'name'>): ToolSpec {
  return Object.freeze({ name: spec.ability.replace('/', '-'), ...spec });
}

/** MCP wants an object schema at the root. */
function objectSchema(schema: JsonSchema, what: string, tool: string): Tool['inputSchema'] {
  if (schema.type !== 'object') throw new Error(`tool ${tool}: the ability's ${what} schema is not an object schema`);
  return schema as Tool['inputSchema'];
}

/** The ability's description as a model reading MCP tools needs it: sibling abilities named by their tool names. */
export function toolDescription(description: string): string {
  return description.replace(/\bsvc\/([a-z0-9-]+)/g, 'svc-$1');
}

/** The tool's full definition as tools/list publishes it. */
export function toolDefinition(spec: ToolSpec, ability: Ability): Tool {
  return {
    name: spec.name,
    title: ability.label,
    description: toolDescription(ability.description),
    inputSchema: objectSchema(ability.inputJsonSchema, 'input', spec.name),
    outputSchema: objectSchema(ability.outputJsonSchema, 'output', spec.name),
    annotations: {
      title: ability.label,
      readOnlyHint: ability.annotations.readonly,
      destructiveHint: ability.annotations.destructive,
      idempotentHint: ability.annotations.idempotent,
      openWorldHint: spec.openWorldHint,
    },
  };
}

export function errorResult(code: string, message: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: `${code}: ${message}` }] };
}

/**
 * Runs the tool's ability as `user` through the registry (which validates input, checks the capability and
 * validates output). Ability errors become a tool result with isError, so the model sees them and can fix
 * its call; anything else is rethrown for the caller to log.
 */
export async function callTool(spec: ToolSpec, registry: AbilityRegistry, args: Record<string, unknown> | undefined, user: User | null): Promise<CallToolResult> {
  let output: unknown;
  try {
    // No arguments: the registry applies the input schema's default, as the host's own API does.
    output = await registry.execute(spec.ability, args, { user });
  } catch (err) {
    if (err instanceof AbilityError) return errorResult(err.code, err.message);
    throw err;
  }
  if (output === null || typeof output !== 'object' || Array.isArray(output)) {
    return errorResult('ability_invalid_output', `${spec.ability} returned a ${Array.isArray(output) ? 'list' : typeof output}, not an object`);
  }
  return { structuredContent: output as Record<string, unknown>, content: [{ type: 'text', text: JSON.stringify(output) }] };
}
