/**
 * How the gateway is put together. Each subsystem assembles itself, `createX(config, deps)`, and
 * gives back its part (what the routes and later subsystems may use) and how it ends; app.ts adds
 * them in order and closes them in reverse, so a part ends before anything it was built on.
 */

/** A subsystem as it assembled itself. */
export type Assembled<Part> = {
  part: Part;
  /** Ends what it started (timers, threads, connections, a last flush); none if nothing. */
  close?: () => Promise<void> | void;
};

export class Assembly {
  private readonly closers: Array<() => Promise<void> | void> = [];

  /**
   * Adds a subsystem and gives its part. If it fails to assemble, the parts added before it are
   * closed (nothing is left running) and its error is thrown.
   */
  async add<Part>(assembling: Promise<Assembled<Part>> | Assembled<Part>): Promise<Part> {
    let assembled: Assembled<Part>;
    try {
      assembled = await assembling;
    } catch (error) {
      await this.close().catch(() => undefined);
      throw error;
    }
    if (assembled.close) this.closers.push(assembled.close);
    return assembled.part;
  }

  /** Closes every part added, the last added first; one that fails does not keep the rest open. */
  async close(): Promise<void> {
    const failures: unknown[] = [];
    for (let close = this.closers.pop(); close; close = this.closers.pop()) {
      try {
        await close();
      } catch (error) {
        failures.push(error);
      }
    }
    if (failures.length > 0) throw failures[0];
  }
}
