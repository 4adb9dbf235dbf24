// Writes with large bodies take turns of the event loop between their steps. Every step of a write is
// linear in the body, and together they held the loop 330–540 ms for a 1.5 MB ConfigMap of 60,000
// keys (parse, decode, validation, admission, commit, answer), so one client's large write held
// every other request for that long. With a turn between the steps, the longest hold is the longest
// step. Small bodies (nearly all) take no turn: they cost nothing more.
import { loopTurn } from '../store/turns.ts';

/** Bodies of this many bytes or more take turns between the steps of their write. */
export const LARGE_BODY_BYTES = 256 * 1024;

/** Decoded bodies that came from a large request body (the registry sees only the decoded value). */
const large = new WeakSet<object>();

/** Records that `body` was decoded from `bytes` bytes of request body. */
export function noteBodySize(body: unknown, bytes: number): void {
  if (bytes >= LARGE_BODY_BYTES && typeof body === 'object' && body !== null) large.add(body);
}

/** Records that `answer` is the served form of a large object (a small patch's answer can be one). */
export function noteLargeAnswer(answer: unknown): void {
  if (typeof answer === 'object' && answer !== null) large.add(answer);
}

/** Whether `body` (a decoded body, a patch's raw bytes or text, or an answer) is a large one. */
export function isLargeBody(body: unknown): boolean {
  if (Buffer.isBuffer(body) || typeof body === 'string') return body.length >= LARGE_BODY_BYTES;
  return typeof body === 'object' && body !== null && large.has(body);
}

/** A turn of the event loop when `body` is large: other requests are served before the write's next step. */
export function turnFor(body: unknown): Promise<void> | undefined {
  return isLargeBody(body) ? loopTurn() : undefined;
}

/** A turn of the event loop when `large` (a large body, or a small patch of a large object). */
export function turnIf(large: boolean): Promise<void> | undefined {
  return large ? loopTurn() : undefined;
}
