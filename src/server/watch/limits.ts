/** Hears what the watch streams do (the server's metrics): each start, live events queued and end. */
export interface WatchObserver {
  started(): void;
  /** `count` live events were queued (counted per flush, not per event and watcher). */
  event(count?: number): void;
  ended(reason: string): void;
}

/** How much a watch stream may hold back for a slow client, and how it writes. */
export interface WatchLimits {
  /** Events a watcher may have waiting behind its socket before it is cut off. */
  maxQueuedEvents: number;
  /** Bytes likewise (the shared buffers counted once per watcher). */
  maxQueuedBytes: number;
  /** Bytes of backlog (initial list, log replay) encoded per slice before checking the socket again. */
  writeChunkBytes: number;
  /** After an overflow, how long the ended stream may take to flush before its socket is destroyed. */
  overflowGraceMs: number;
  /**
   * Live events are gathered for up to this long and written to each watcher as one chunk: at a
   * thousand events a second and hundreds of cluster-wide watchers, one write per event per watcher is
   * what the server spends its time on. 0 writes on the next turn of the event loop.
   */
  coalesceMs: number;
  /**
   * Metrics hook. Carried with the limits because the resource handler hands them to the streams
   * as they are (src/server/resources.ts is not this module's to change).
   */
  observer?: WatchObserver;
}

export const defaultWatchLimits: WatchLimits = {
  maxQueuedEvents: 10_000,
  maxQueuedBytes: 8 * 1024 * 1024,
  writeChunkBytes: 64 * 1024,
  overflowGraceMs: 10_000,
  coalesceMs: 25,
};
