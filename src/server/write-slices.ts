// Writes a sliced response body (codec.ts SlicedBody) without holding the event loop or the memory:
// a step of encoding, then its bytes to the socket; after a few milliseconds of steps the rest waits
// for the next turn of the loop (other requests are served in between), and while the client is not
// reading (the write says the buffer is full) nothing more is encoded until it drains. A client that
// goes away ends the encoding; a step that fails cuts the connection, since the head is already out.
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { ServerResponse } from 'node:http';

type Response = ServerResponse;

/** How long steps run back to back before the rest waits for the loop's next turn. */
const TURN_MS = 4;

/** Resolves once the response can take more bytes, or is closed. */
function drained(res: Response): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

function gone(res: Response): boolean {
  return res.destroyed || res.writableEnded;
}

/** Writes every slice, then ends the response. Never rejects: a failure destroys the response. */
export async function writeSlices(res: Response, slices: Iterable<Buffer | undefined>): Promise<void> {
  const steps = slices[Symbol.iterator]();
  let turnStart = performance.now();
  try {
    for (;;) {
      if (gone(res)) return;
      const step = steps.next();
      if (step.done) break;
      const bytes = step.value;
      if (bytes !== undefined && bytes.length > 0 && !res.write(bytes)) {
        await drained(res);
        turnStart = performance.now();
      } else if (performance.now() - turnStart > TURN_MS) {
        await nextTurn();
        turnStart = performance.now();
      }
    }
    if (!gone(res)) res.end();
  } catch {
    res.destroy();
  } finally {
    steps.return?.();
  }
}
