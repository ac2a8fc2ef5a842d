// A bound on how many costly checks (a password's scrypt run) one process does at once: past it, a check waits in
// line for a while and is then turned away, so a burst of sign-ins cannot queue other people's sign-ins behind it
// for long, nor take every thread of the pool that runs scrypt.

export class CheckSlots {
  private busy = 0;
  private readonly line: Array<() => void> = [];

  constructor(
    /** Checks at once. */
    readonly size: number,
    /** How long a check waits for a slot before it is turned away (ms). */
    private readonly maxWaitMs: number,
  ) {}

  /** A slot's release, or null when none came free within the wait. */
  acquire(): Promise<(() => void) | null> {
    if (this.busy < this.size) {
      this.busy++;
      return Promise.resolve(this.releaser());
    }
    return new Promise((resolve) => {
      const grant = () => {
        clearTimeout(timer);
        this.busy++;
        resolve(this.releaser());
      };
      const timer = setTimeout(() => {
        const i = this.line.indexOf(grant);
        if (i >= 0) this.line.splice(i, 1);
        resolve(null);
      }, this.maxWaitMs);
      this.line.push(grant);
    });
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.busy--;
      this.line.shift()?.();
    };
  }
}
