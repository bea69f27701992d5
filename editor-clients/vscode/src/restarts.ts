// When the daemon stops on its own: restart it, and say so, at most maxRestarts times in three
// minutes (a daemon that keeps dying is left stopped, with a message saying why).

export const RESTART_WINDOW_MS = 3 * 60 * 1000;

export interface RestartDecision {
  restart: boolean;
  message: string;
}

export class RestartPolicy {
  private readonly times: number[] = [];

  constructor(private readonly now: () => number = Date.now) {}

  /** The daemon stopped without being asked to: what to do, and what to tell the user. */
  closed(maxRestarts: number): RestartDecision {
    const now = this.now();
    while (this.times.length > 0 && now - this.times[0] > RESTART_WINDOW_MS) this.times.shift();
    if (this.times.length >= maxRestarts) {
      return {
        restart: false,
        message: `ragls: the daemon stopped ${maxRestarts + 1} times in three minutes; not restarting it (see the ragls output).`,
      };
    }
    this.times.push(now);
    return { restart: true, message: 'ragls: the daemon stopped unexpectedly; restarting it (see the ragls output).' };
  }

  /** A restart the user asked for starts the count again. */
  reset(): void {
    this.times.length = 0;
  }
}
