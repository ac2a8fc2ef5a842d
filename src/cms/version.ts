// Host versions compared numerically, segment by segment (6.10 > 6.9; 6.9 == 6.9.0).

export const ABILITIES_MIN_VERSION = '6.9';

export function compareVersions(a: string, b: string): number {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d < 0 ? -1 : 1;
  }
  return 0;
}

/** The abilities API is built into the host from 6.9 on; older hosts have none. */
export function hasAbilitiesApi(version: string): boolean {
  return compareVersions(version, ABILITIES_MIN_VERSION) >= 0;
}
