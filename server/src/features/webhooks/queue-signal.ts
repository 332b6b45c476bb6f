// A wake-up line from the request path to the delivery worker: the verbs that queue a delivery notify, main.ts's
// delivery worker listens. Without a listener (tests without workers) a notify does nothing.
export interface QueueSignal {
  notify(): void;
  listen(listener: () => void): () => void;
}

export function createQueueSignal(): QueueSignal {
  const listeners = new Set<() => void>();
  return {
    notify: () => listeners.forEach((listener) => listener()),
    listen(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
