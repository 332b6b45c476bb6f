// Per-request deadlines without a timer per request. AbortSignal.timeout costs a timer, an EventTarget and
// GC bookkeeping for every attempt, which showed in the delivery profile; here one interval per client sweeps
// every pending deadline, and each deadline is a tiny object undici accepts as a signal (it takes an
// EventEmitter-like `on/once/removeListener` for requests and an EventTarget-like `addEventListener` for
// body.dump). A deadline fires between `ms` and `ms + tick` after it was set.

type Listener = () => void;

export class Deadline {
  aborted = false;
  reason: unknown = undefined;
  private listeners: Listener[] = [];

  constructor(
    /** performance.now() at which it fires. */
    readonly at: number,
    private readonly wheel: DeadlineWheel,
  ) {}

  /** Fires now (the sweep calls it when the time has come). */
  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    const listeners = this.listeners;
    this.listeners = [];
    for (const listener of listeners) listener();
  }

  /** The request no longer needs it: stop tracking it (cheap, idempotent). */
  clear(): void {
    this.wheel.forget(this);
    this.listeners = [];
  }

  // EventEmitter shape (undici request `signal`).
  on(_event: 'abort', listener: Listener): this {
    this.listeners.push(listener);
    return this;
  }
  once(event: 'abort', listener: Listener): this {
    return this.on(event, listener);
  }
  removeListener(_event: 'abort', listener: Listener): this {
    const i = this.listeners.indexOf(listener);
    if (i >= 0) this.listeners.splice(i, 1);
    return this;
  }
  // EventTarget shape (undici body.dump `signal`).
  addEventListener(event: 'abort', listener: Listener): void {
    this.on(event, listener);
  }
  removeEventListener(event: 'abort', listener: Listener): void {
    this.removeListener(event, listener);
  }
}

export class DeadlineWheel {
  private readonly pending = new Set<Deadline>();
  private timer: NodeJS.Timeout | null = null;

  /** `tickMs`: how late a deadline may fire at most. */
  constructor(private readonly tickMs = 100) {}

  /** A deadline `ms` from now; call clear() on it when the work is done. */
  start(ms: number): Deadline {
    const deadline = new Deadline(performance.now() + ms, this);
    this.pending.add(deadline);
    if (this.timer === null) {
      this.timer = setInterval(() => this.sweep(), this.tickMs);
      this.timer.unref(); // a pending deadline must not keep the process alive on its own
    }
    return deadline;
  }

  forget(deadline: Deadline): void {
    this.pending.delete(deadline);
  }

  /** Stops the interval (pending deadlines never fire after this). */
  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.pending.clear();
  }

  private sweep(): void {
    const now = performance.now();
    for (const deadline of this.pending) {
      if (deadline.at <= now) {
        this.pending.delete(deadline);
        deadline.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError'));
      }
    }
    if (this.pending.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = null;
    }
  }
}
