/**
 * Wake-ups for the background work (issue 35): the auction and the delivery worker talk through
 * their tables, and each polls its own (every 250 ms). A wake-up only says "there is something
 * in your table now" so it need not wait for its next poll: a lead stored (deliveries and an
 * auction to run), an auction decided (posts queued), a post refused (an auction cascading). No
 * data travels with it; a lost wake-up costs a poll interval, never a lead.
 */
export type WorkKind = "deliveries" | "auctions";

export interface Wakeups {
  wake(kind: WorkKind): void;
  /** Calls `listener` at each wake-up of `kind`; returns the unsubscribe. */
  on(kind: WorkKind, listener: () => void): () => void;
}

export function createWakeups(): Wakeups {
  const listeners: Record<WorkKind, Set<() => void>> = { deliveries: new Set(), auctions: new Set() };
  return {
    wake(kind) {
      for (const listener of listeners[kind]) listener();
    },
    on(kind, listener) {
      listeners[kind].add(listener);
      return () => listeners[kind].delete(listener);
    },
  };
}
