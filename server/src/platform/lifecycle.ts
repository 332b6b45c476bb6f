// Stop callbacks for graceful shutdown. Whatever starts something long-lived (workers, timers, pools) registers how
// to stop it; main.ts runs them in reverse order of registration on SIGTERM/SIGINT, after the HTTP server stopped.
export type StopFn = () => void | Promise<void>;

export class Lifecycle {
  private readonly stops: { name: string; stop: StopFn }[] = [];
  private stopping: Promise<void> | undefined;

  /** Register `stop` under `name` (for logs). Returns an unregister function. */
  onStop(name: string, stop: StopFn): () => void {
    const entry = { name, stop };
    this.stops.push(entry);
    return () => {
      const i = this.stops.indexOf(entry);
      if (i >= 0) this.stops.splice(i, 1);
    };
  }

  /** Runs every stop callback once, last registered first; a failing callback does not prevent the others. */
  stopAll(onError: (name: string, err: unknown) => void = () => {}): Promise<void> {
    this.stopping ??= (async () => {
      for (const { name, stop } of this.stops.splice(0).reverse()) {
        try {
          await stop();
        } catch (err) {
          onError(name, err);
        }
      }
    })();
    return this.stopping;
  }
}
