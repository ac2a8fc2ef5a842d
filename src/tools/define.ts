// What turns an ability into an MCP tool. A tool file names its ability and decides the one hint the
// ability cannot know (openWorldHint); everything else — title, description, both schemas and the other
// three hints — is read from the ability at listing time, so there is one source of every schema.
import type { CallToolResult, ContentBlock, Tool } from '@modelcontextprotocol/server';
import {
  AbilityError,
  type Ability,
  type AbilityRegistry,
  type ExecuteContext,
  type JsonSchema,
} from '../abilities/types.js';

export interface ToolSpec {
  /** MCP name: the ability name with its slash made a dash (MCP names allow no slash). */
  name: string;
  /** The svc/* ability the tool runs. */
  ability: string;
  /** True when a call reaches beyond this service's own data (fetches the site or the links on it). */
  openWorldHint: boolean;
  /** Content items a success carries after the JSON text (e.g. resource links to the pages found). */
  content?(output: Record<string, unknown>): ContentBlock[];
}

export function defineTool(spec: Omit<ToolSpec, 'name'>): ToolSpec {
  return Object.freeze({ name: spec.ability.replace('/', '-'), ...spec });
}

/** MCP wants an object schema at the root. */
function objectSchema(schema: JsonSchema, what: string, tool: string): Tool['inputSchema'] {
  if (schema.type !== 'object') throw new Error(`tool ${tool}: the ability's ${what} schema is not an object schema`);
  return schema as Tool['inputSchema'];
}

/** Text of an ability (description, error, notice) as a model reading MCP tools needs it: abilities named by their tool names. */
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

/** A JSON-RPC error for the protocol to send. (McpError would put "MCP error -32602:" into the message itself.) */
export function protocolError(code: number, message: string): Error {
  return Object.assign(new Error(message), { code });
}

export function errorResult(code: string, message: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: `${code}: ${toolDescription(message)}` }] };
}

/**
 * Runs the tool's ability as `user` through the registry (which validates input, checks the capability and
 * validates output). Ability errors become a tool result with isError, so the model sees them and can fix
 * its call; anything else is rethrown for the caller to log.
 */
export async function callTool(
  spec: ToolSpec,
  registry: AbilityRegistry,
  args: Record<string, unknown> | undefined,
  ctx: ExecuteContext,
): Promise<CallToolResult> {
  let output: unknown;
  try {
    // No arguments: the registry applies the input schema's default, as the host's own API does.
    output = await registry.execute(spec.ability, args, ctx);
  } catch (err) {
    if (err instanceof AbilityError) return errorResult(err.code, err.message);
    throw err;
  }
  return toolResult(spec, output);
}

/**
 * An ability's output as the tool's result: the object as structuredContent and as JSON text, then the tool's own
 * content items. Also what a finished task carries, so a crawl run as a task ends with the result of a plain call.
 */
export function toolResult(spec: ToolSpec, output: unknown): CallToolResult {
  if (output === null || typeof output !== 'object' || Array.isArray(output)) {
    return errorResult(
      'ability_invalid_output',
      `${spec.ability} returned a ${Array.isArray(output) ? 'list' : typeof output}, not an object`,
    );
  }
  let structured = output as Record<string, unknown>;
  // A notice is prose for the model: it names what to call next by tool name.
  if (typeof structured.notice === 'string') structured = { ...structured, notice: toolDescription(structured.notice) };
  return {
    structuredContent: structured,
    content: [{ type: 'text', text: JSON.stringify(structured) }, ...(spec.content?.(structured) ?? [])],
  };
}
