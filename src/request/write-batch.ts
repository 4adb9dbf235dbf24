// Writes finished in one turn of the event loop go out together, in its check phase (setImmediate),
// instead of one by one as each handler finishes. Under load one turn reads and answers many
// requests; writing their answers back to back lets a peer woken by the first find the rest already
// there, instead of each write waking a sleeping peer. On the 2-core VM the benchmarks run on, that
// wake-up dominated a small response's cost (docs/performance.md). The delay is at most the rest of
// the current turn: nothing waits for a timer. Used by the API server's responses and by the auth
// proxy for both its upstream requests and its answers.
import type { ServerResponse } from 'node:http';

/** A write to run in the batch, as an object: a caller with one per request need not make a closure too. */
export interface BatchWrite {
  writeInBatch(): void;
}

let pending: Array<(() => void) | BatchWrite> = [];
let scheduled = false;
/** When the oldest queued write was queued (performance.now()). */
let oldestAt = 0;
/**
 * A batch older than this is written at the next write queued rather than at the turn's end: a turn
 * that runs long (a very large LIST encoded synchronously) does not hold the answers finished before it.
 */
const MAX_HOLD_MS = 2;

function run(write: (() => void) | BatchWrite): void {
  try {
    if (typeof write === 'function') write();
    else write.writeInBatch();
  } catch {
    // each write guards its own connection (see endInBatch); one failure must not leave the rest unwritten
  }
}

function flush(): void {
  const batch = pending;
  pending = [];
  scheduled = false;
  for (const write of batch) run(write);
}

/** Runs `write` later in this turn of the event loop, with every other write queued in it. */
export function inTurnBatch(write: (() => void) | BatchWrite): void {
  const now = performance.now();
  if (pending.length === 0) oldestAt = now;
  pending.push(write);
  if (now - oldestAt > MAX_HOLD_MS) {
    // the scheduled flush still runs; it finds the batch empty or holding later writes
    const batch = pending;
    pending = [];
    for (const w of batch) run(w);
    return;
  }
  if (!scheduled) {
    scheduled = true;
    setImmediate(flush);
  }
}

/** `res.end(body)` in this turn's batch; a response that cannot be ended is destroyed, never left open. */
export function endInBatch(res: ServerResponse, body: string | Buffer): void {
  inTurnBatch(() => {
    try {
      res.end(body);
    } catch (e) {
      res.destroy(e as Error);
    }
  });
}
