// Crawls as MCP tasks (the io.modelcontextprotocol/tasks extension of 2026-07-28): a crawl tool called by a request
// that declares the extension answers a task at once instead of the crawl record, and tasks/get and tasks/cancel
// follow it. The tasks live in the store (the abilities' CrawlTaskService), so any process on it answers for any task,
// and only to the user who started it. A request that does not declare the extension gets today's answers: the plain
// crawl record from the tool, and the missing-capability error from the task methods.
import {
  CLIENT_CAPABILITIES_META_KEY,
  MissingRequiredClientCapabilityError,
  ProtocolError,
  ProtocolErrorCode,
  type Result,
  type Server,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { CrawlTaskService, CrawlTaskState } from '../abilities/crawl-tasks.js';
import { isCrawlTaskAbility } from '../abilities/crawl-tasks.js';
import { AbilityError } from '../abilities/types.js';
import type { User } from '../model/users.js';
import { errorResult, toolDescription, toolResult, type ToolSpec } from '../tools/define.js';
import type { TaskAnswer, ToolCallStep } from '../tools/index.js';

export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** The capabilities a 2026-07-28 request declares in its _meta; undefined on a 2025 request (they came with initialize). */
export function requestCapabilities(ctx: ServerContext): Record<string, unknown> | undefined {
  const declared = (ctx.mcpReq.envelope as Record<string, unknown> | undefined)?.[CLIENT_CAPABILITIES_META_KEY];
  return declared !== null && typeof declared === 'object' ? (declared as Record<string, unknown>) : undefined;
}

/** Whether this (2026-07-28) request declares the tasks extension among its client capabilities. */
export function declaresTasks(ctx: ServerContext): boolean {
  const extensions = requestCapabilities(ctx)?.extensions;
  return extensions !== null && typeof extensions === 'object' && TASKS_EXTENSION in extensions;
}

/** The task fields every answer about a task carries (CreateTaskResult, and the base of tasks/get's). */
function taskFields(state: CrawlTaskState) {
  return {
    taskId: state.taskId,
    status: state.status,
    statusMessage: state.statusMessage,
    createdAt: state.createdAt,
    lastUpdatedAt: state.lastUpdatedAt,
    ttlMs: state.ttlMs,
    pollIntervalMs: state.pollIntervalMs,
  };
}

/** The answer to a crawl tool's call that started a task: the task, flat, marked as one. */
export function createTaskResult(state: CrawlTaskState): TaskAnswer {
  return { resultType: 'task', ...taskFields(state) };
}

/**
 * tasks/get's answer: the task, and once it has ended its outcome — `result` (what the tool answers without a task)
 * when completed, `error` when failed (the crawl record in its data, so nothing is hidden). A cancelled task tells
 * only how far its crawl got (statusMessage).
 */
export function detailedTask(spec: ToolSpec | undefined, state: CrawlTaskState): Result {
  const fields = taskFields(state);
  if (state.status === 'completed' && state.result && spec)
    return { ...fields, result: toolResult(spec, state.result) };
  if (state.status === 'failed')
    return {
      ...fields,
      error: {
        code: ProtocolErrorCode.InternalError,
        message: state.statusMessage,
        ...(state.result && { data: { crawl: state.result } }),
      },
    };
  return fields;
}

/** An ability error of the task service as the protocol error tasks/get and tasks/cancel answer. */
function taskProtocolError(err: unknown): never {
  // Not found and not yours are one answer (-32602, as an unknown id), so ids cannot be probed; a missing
  // capability says which.
  if (err instanceof AbilityError)
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, toolDescription(err.message));
  throw err;
}

function requireTasks(ctx: ServerContext, method: string): void {
  if (declaresTasks(ctx)) return;
  // A 2025 request: tasks are not part of that era on this server.
  if (!requestCapabilities(ctx)) throw new ProtocolError(ProtocolErrorCode.MethodNotFound, 'Method not found');
  throw new MissingRequiredClientCapabilityError(
    { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
    `${method} needs the ${TASKS_EXTENSION} extension declared in the request's client capabilities`,
  );
}

const TaskParams = z.object({ taskId: z.string() });

export interface CrawlTasksOverMcp {
  tasks: CrawlTaskService;
  user: User | null;
  signInHint?: string;
  /** The tool of each ability (a finished task answers in its tool's form). */
  toolOf(ability: string): ToolSpec | undefined;
}

/** The step before a tool call that starts a crawl tool as a task when the request declares the extension. */
export function crawlTaskStep(opts: CrawlTasksOverMcp): ToolCallStep {
  return async ({ spec, args }, ctx) => {
    if (!isCrawlTaskAbility(spec.ability) || !declaresTasks(ctx)) return undefined;
    try {
      const state = await opts.tasks.start(spec.ability, args, { user: opts.user, signInHint: opts.signInHint });
      return createTaskResult(state);
    } catch (err) {
      // The same refusals as a plain call (bad input, no permission, a crawl already running), as the tool's result.
      if (err instanceof AbilityError) return errorResult(err.code, err.message);
      throw err;
    }
  };
}

/** tasks/get, tasks/cancel and tasks/update on `server`, for the current user's tasks. */
export function registerTaskHandlers(server: Server, opts: CrawlTasksOverMcp): void {
  server.setRequestHandler('tasks/get', { params: TaskParams }, async ({ taskId }, ctx) => {
    requireTasks(ctx, 'tasks/get');
    const state = await opts.tasks.get(opts.user, taskId).catch(taskProtocolError);
    return detailedTask(opts.toolOf(state.ability), state);
  });
  server.setRequestHandler('tasks/cancel', { params: TaskParams }, async ({ taskId }, ctx) => {
    requireTasks(ctx, 'tasks/cancel');
    try {
      await opts.tasks.cancel(opts.user, taskId);
    } catch (err) {
      // Cancelling a task that has ended changes nothing and is answered like any cancel (the next get says how it ended).
      if (!(err instanceof AbilityError && err.code === 'svc_task_ended')) taskProtocolError(err);
    }
    return {};
  });
  // A crawl never waits for input from its client, so there is nothing to update: the owner hears that, anyone else
  // the not-found of any other id.
  server.setRequestHandler('tasks/update', { params: TaskParams }, async ({ taskId }, ctx) => {
    requireTasks(ctx, 'tasks/update');
    const state = await opts.tasks.get(opts.user, taskId).catch(taskProtocolError);
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `task ${state.taskId} is a crawl, which never asks for input: there is nothing to update (its status: ${state.status})`,
    );
  });
}
