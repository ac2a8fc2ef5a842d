// The order files start in: vitest's (project by project, then longest first by an earlier run's durations, or by
// size in a fresh clone), with the files SLOWEST names moved to the front of their project. A file that runs long
// but starts last keeps every other worker idle at the end of the run; named here, it starts first on every machine.
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { ROOT } from './paths.js';
import { SLOWEST } from './projects.js';

export class SlowestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const projects = [...new Set(sorted.map((s) => s.project.name))];
    const rank = (s: TestSpecification) => {
      const i = SLOWEST.findIndex((f) => s.moduleId === `${ROOT}/${f}`);
      return i < 0 ? SLOWEST.length : i;
    };
    const keyed = sorted.map((spec, i) => ({
      spec,
      i,
      project: projects.indexOf(spec.project.name),
      rank: rank(spec),
    }));
    keyed.sort((a, b) => a.project - b.project || a.rank - b.rank || a.i - b.i);
    return keyed.map((k) => k.spec);
  }
}
