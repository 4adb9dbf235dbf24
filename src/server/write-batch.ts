// Responses finished in one turn of the event loop are written together, in its check phase
// (setImmediate), instead of one by one as each handler finishes. Under load one turn reads and
// answers many requests; writing their answers back to back lets a client that is woken by the first
// find the rest already there, instead of each write waking a sleeping peer. On this 2-core VM that
// wake-up dominated a small response's cost (see docs/performance.md). The delay is at most the rest
// of the current turn: nothing waits for a timer.
import type { ServerResponse } from 'node:http';

type Pending = [ServerResponse, string | Buffer];

let pending: Pending[] = [];
let scheduled = false;

function flush(): void {
  const batch = pending;
  pending = [];
  scheduled = false;
  for (const [res, body] of batch) {
    try {
      res.end(body);
    } catch (e) {
      // one broken connection must not leave the rest of the batch unanswered
      res.destroy(e as Error);
    }
  }
}

/** `res.end(body)` later in this turn of the event loop, with every other response finished in it. */
export function endInBatch(res: ServerResponse, body: string | Buffer): void {
  pending.push([res, body]);
  if (!scheduled) {
    scheduled = true;
    setImmediate(flush);
  }
}
