// The wire shapes of tasks and the reading of a client's elicitation capability, as pure functions: what a failed
// or cancelled task carries (the integration tests see completed and cancelled ones; a failed crawl is hard to
// cause on purpose), and which capabilities count as form elicitation.
import { describe, expect, it } from 'vitest';
import type { CrawlTaskState } from '../../src/abilities/crawl-tasks.js';
import type { AbilityCrawlRecord } from '../../src/abilities/rest-to-ability.js';
import { declaresFormElicitation } from '../../src/mcp/confirm-delete.js';
import { createTaskResult, detailedTask } from '../../src/mcp/tasks.js';
import { svcFullCrawl } from '../../src/tools/svc-full-crawl.js';

const record = { id: 7, mode: 'full', status: 'failed' } as unknown as AbilityCrawlRecord;

function state(status: CrawlTaskState['status'], result: AbilityCrawlRecord | null): CrawlTaskState {
  return {
    taskId: 'YflKUoec8RJDyl7KFsGILQ',
    status,
    statusMessage: `crawl 7 ${status}`,
    createdAt: '2026-11-25T10:00:00.000Z',
    lastUpdatedAt: '2026-11-25T10:01:00.000Z',
    ttlMs: 3_600_000,
    pollIntervalMs: 2000,
    expiresAt: null,
    ability: 'svc/full-crawl',
    crawlId: 7,
    result,
  };
}

describe('task shapes', () => {
  it('a created task is flat and names no outcome', () => {
    const created = createTaskResult(state('working', null));
    expect(created).toEqual({
      resultType: 'task',
      taskId: 'YflKUoec8RJDyl7KFsGILQ',
      status: 'working',
      statusMessage: 'crawl 7 working',
      createdAt: '2026-11-25T10:00:00.000Z',
      lastUpdatedAt: '2026-11-25T10:01:00.000Z',
      ttlMs: 3_600_000,
      pollIntervalMs: 2000,
    });
  });

  it('a failed task carries an error with the crawl record, and no result', () => {
    const failed = detailedTask(svcFullCrawl, state('failed', record));
    expect(failed).toMatchObject({
      status: 'failed',
      error: { code: -32603, message: 'crawl 7 failed', data: { crawl: record } },
    });
    expect(failed).not.toHaveProperty('result');
    const gone = detailedTask(svcFullCrawl, state('failed', null));
    expect(gone).toMatchObject({ error: { message: 'crawl 7 failed' } });
    expect((gone as { error: object }).error).not.toHaveProperty('data');
  });

  it('a completed task carries the tool result; a cancelled one only its status', () => {
    const completed = detailedTask(svcFullCrawl, state('completed', { ...record, status: 'completed' }));
    expect(completed).toMatchObject({ result: { structuredContent: { id: 7, status: 'completed' } } });
    const cancelled = detailedTask(svcFullCrawl, state('cancelled', { ...record, status: 'stopped' }));
    expect(cancelled).not.toHaveProperty('result');
    expect(cancelled).not.toHaveProperty('error');
  });
});

describe('form elicitation in client capabilities', () => {
  it('counts an empty elicitation object and one with form, not url only or none', () => {
    expect(declaresFormElicitation({ elicitation: {} })).toBe(true);
    expect(declaresFormElicitation({ elicitation: { form: {}, url: {} } })).toBe(true);
    expect(declaresFormElicitation({ elicitation: { url: {} } })).toBe(false);
    expect(declaresFormElicitation({ elicitation: true })).toBe(false);
    expect(declaresFormElicitation({})).toBe(false);
    expect(declaresFormElicitation(undefined)).toBe(false);
  });
});
