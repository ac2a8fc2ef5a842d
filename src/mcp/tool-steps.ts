// The steps before a tool call that a host's MCP server takes for the requests that can use them: a crawl tool run
// as a task (2026-07-28 requests declaring the tasks extension; the task methods and the advertisement come with
// it), then a delete confirmed by the client's user (clients that can show a form). Kept apart from the server
// definition so each step stays in its own file and the server only chains them.
import type { Server } from '@modelcontextprotocol/server';
import { toolInventory, type ToolCallAnswer, type ToolCallStep } from '../tools/index.js';
import { observe, type McpCallResult } from '../model/observations.js';
import { confirmDeleteStep } from './confirm-delete.js';
import type { McpServerOptions } from './mcp-server.js';
import { crawlTaskStep, registerTaskHandlers, TASKS_EXTENSION } from './tasks.js';

/** How a step answered instead of the tool: a task, a round asking the user, or a result of its own. */
function stepResult(answer: ToolCallAnswer): McpCallResult {
  if ((answer as { resultType?: unknown }).resultType === 'task') return 'task';
  if (!('content' in answer)) return 'input_required';
  return answer.isError ? 'error' : 'ok';
}

/** The steps before a tool call that this host supports, in order: a crawl as a task, then a confirmed delete. */
export function hostToolSteps(server: Server, opts: McpServerOptions): ToolCallStep | undefined {
  const { host } = opts;
  const steps: ToolCallStep[] = [];
  if (host.tasks && opts.era !== 'legacy') {
    const inv = toolInventory(host.registry);
    const toolOf = (ability: string) => [...inv.byName.values()].find((spec) => spec.ability === ability);
    const tasks = { tasks: host.tasks, user: opts.user, signInHint: opts.signInHint, toolOf };
    steps.push(crawlTaskStep(tasks));
    registerTaskHandlers(server, tasks);
    server.registerCapabilities({ extensions: { [TASKS_EXTENSION]: {} } });
  }
  if (host.deleteConfirmer)
    steps.push(confirmDeleteStep({ confirmer: host.deleteConfirmer, can: host.can, server, now: opts.now }));
  if (steps.length === 0) return undefined;
  return async (call, ctx) => {
    for (const step of steps) {
      const answer = await step(call, ctx);
      if (answer) {
        // Answered here instead of by the tool (the tool's own answers are observed where they are logged).
        observe('mcpCallAnswered', { tool: call.spec.name, result: stepResult(answer) });
        return answer;
      }
    }
    return undefined;
  };
}
