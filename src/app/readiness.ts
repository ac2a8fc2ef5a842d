// svc serve's /readyz: ready when every project's database answers and has every migration this svc knows (see
// store/readiness.ts); /healthz stays the process's liveness.
import { storeNotReady } from '../store/readiness.js';
import type { App } from './open-app.js';

export interface Readiness {
  ready: boolean;
  /** Per project that is not ready: why. */
  problems: { project: string; error: string }[];
}

export async function appReadiness(app: App): Promise<Readiness> {
  const problems: Readiness['problems'] = [];
  await Promise.all(
    app.projects.map(async (p) => {
      const error = await storeNotReady(p.store);
      if (error) problems.push({ project: p.token, error });
    }),
  );
  return { ready: problems.length === 0, problems };
}
