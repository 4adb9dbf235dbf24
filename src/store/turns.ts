// Long loops of writes give the event loop a turn now and then. A write to a backend that commits at
// once (memory) settles in the same microtask run as the loop awaiting it, so thousands of awaited
// writes in a row (a deletecollection, a namespace's contents) would otherwise hold every other
// request until the last one; lmdb and etcd commits wait for a thread or the network and yield anyway.

/**
 * The event loop's next turn, with its I/O: an immediate queued from an I/O callback runs in the same
 * turn's check phase, before any new I/O is read, so a second one is queued from there (it runs in
 * the next turn, after that turn's poll for I/O).
 */
export function loopTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(() => setImmediate(resolve)));
}

/** Writes between turns of the event loop. */
export const WRITES_PER_TURN = 100;

/** A function to await before each write of a long loop: every WRITES_PER_TURN-th call waits for the loop's next turn. */
export function turnTaker(every = WRITES_PER_TURN): () => Promise<void> {
  let calls = 0;
  return () => (++calls % every === 0 ? loopTurn() : Promise.resolve());
}
