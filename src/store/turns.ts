// Long loops of writes give the event loop a turn now and then. A write to a backend that commits at
// once (memory) settles in the same microtask run as the loop awaiting it, so thousands of awaited
// writes in a row (a deletecollection, a namespace's contents) would otherwise hold every other
// request until the last one; lmdb and etcd commits wait for a thread or the network and yield anyway.
import { setImmediate as nextTurn } from 'node:timers/promises';

/** Writes between turns of the event loop. */
export const WRITES_PER_TURN = 100;

/** A function to await before each write of a long loop: every WRITES_PER_TURN-th call waits for the loop's next turn. */
export function turnTaker(every = WRITES_PER_TURN): () => Promise<void> {
  let calls = 0;
  return () => (++calls % every === 0 ? nextTurn() : Promise.resolve());
}
