// Crawl abilities run as tasks, for a protocol layer that hands a long crawl to its client to poll and cancel: start
// one through the registry (the same input checks and permission check as a plain call), read it back as its owner
// only, cancel it with the capability that started it. The state is in the ability's forms, so a finished task
// answers exactly what the plain call would have answered: the crawl record.
import { crawlEnded } from '../model/types.js';
import type { User } from '../model/users.js';
import type { CrawlTasks, CrawlTaskStatus, CrawlTaskView } from '../backend/crawl-tasks.js';
import { userCan } from '../cms/roles.js';
import { invalidInput, invalidPermissions, taskEnded, taskNotFound } from './errors.js';
import { toAbilityCrawlRecord, type AbilityCrawlRecord } from './rest-to-ability.js';
import type { AbilityRegistry, ExecuteContext } from './types.js';

/** The abilities that may run as a task: the three that start a crawl. */
export const CRAWL_TASK_ABILITIES = ['svc/full-crawl', 'svc/partial-crawl', 'svc/manual-crawl'] as const;

export function isCrawlTaskAbility(name: string): boolean {
  return (CRAWL_TASK_ABILITIES as readonly string[]).includes(name);
}

/** A task as its owner sees it (the names are the protocol's, so the layer above passes them on). */
export interface CrawlTaskState {
  taskId: string;
  status: CrawlTaskStatus;
  statusMessage: string;
  createdAt: string;
  lastUpdatedAt: string;
  /** How long the task is kept after its crawl ends. */
  ttlMs: number;
  pollIntervalMs: number;
  /** When it will be deleted; null while its crawl runs. */
  expiresAt: string | null;
  /** The ability that started it (its MCP tool: the same name with "-" for "/"). */
  ability: string;
  crawlId: number;
  /**
   * Once the task has ended and its crawl with it: the final crawl record, what the ability answers without a task.
   * Null while working, while a cancelled crawl is still stopping, and when the crawl no longer exists.
   */
  result: AbilityCrawlRecord | null;
}

function stateOf(v: CrawlTaskView): CrawlTaskState {
  const ended = v.status !== 'working' && v.crawl !== null && crawlEnded(v.crawl.status);
  return {
    taskId: v.task.id,
    status: v.status,
    statusMessage: v.statusMessage,
    createdAt: v.task.createdAt,
    // A crawl starts a moment before its task is stored: a task never says it changed before it existed.
    lastUpdatedAt: Date.parse(v.lastUpdatedAt) >= Date.parse(v.task.createdAt) ? v.lastUpdatedAt : v.task.createdAt,
    ttlMs: v.task.ttlMs,
    pollIntervalMs: v.task.pollIntervalMs,
    expiresAt: v.expiresAt,
    ability: v.task.ability,
    crawlId: v.task.crawlId,
    result: ended ? toAbilityCrawlRecord(v.crawl!) : null,
  };
}

export class CrawlTaskService {
  constructor(
    private readonly registry: AbilityRegistry,
    private readonly tasks: CrawlTasks,
  ) {}

  /**
   * Runs a crawl ability as a task: the same run as a plain call (input, permission, the crawl starting or a 409),
   * then the task that follows it, owned by the caller.
   */
  async start(ability: string, input: unknown, ctx: ExecuteContext): Promise<CrawlTaskState> {
    const registered = this.registry.get(ability);
    if (registered && !isCrawlTaskAbility(ability)) {
      throw invalidInput(ability, [
        { path: 'task', message: `${ability} cannot run as a task: only ${CRAWL_TASK_ABILITIES.join(', ')} can` },
      ]);
    }
    // Expired tasks go first, so they never pile up, and before the crawl starts, so a failure here starts nothing.
    await this.tasks.cleanup();
    const record = (await this.registry.execute(ability, input, ctx)) as AbilityCrawlRecord;
    // execute refuses a missing user before it runs, so ctx.user is set here.
    const view = await this.tasks.create({
      owner: ctx.user!.login,
      ability,
      capability: registered!.capability,
      crawlId: record.id,
    });
    return stateOf(view);
  }

  /** The caller's task `taskId` as it stands now; not found for anyone else's, and while they lack its capability a refusal. */
  async get(user: User | null, taskId: string): Promise<CrawlTaskState> {
    return stateOf(await this.own(user, taskId));
  }

  /**
   * Cancels the caller's working task: its crawl stops wherever it runs (within a heartbeat in another process).
   * Needs the capability that started it; a task that has ended cannot be cancelled (svc_task_ended).
   */
  async cancel(user: User | null, taskId: string): Promise<CrawlTaskState> {
    const view = await this.own(user, taskId);
    if (view.status !== 'working') throw taskEnded(view.task.id, view.status);
    if (!(await this.tasks.cancel(view))) {
      const now = await this.own(user, taskId);
      throw taskEnded(now.task.id, now.status);
    }
    return stateOf((await this.tasks.find(view.task.id, view.task.owner))!);
  }

  /** Deletes the tasks that have expired; answers how many (starting a task does this too). */
  cleanup(): Promise<number> {
    return this.tasks.cleanup();
  }

  private async own(user: User | null, taskId: string): Promise<CrawlTaskView> {
    const view = user ? await this.tasks.find(taskId, user.login) : null;
    if (!view) throw taskNotFound();
    // The task shows crawl records, which take the capability that started it to read.
    if (!userCan(user, view.task.capability))
      throw invalidPermissions(`task ${view.task.id}`, view.task.capability, user);
    return view;
  }
}
