// A data document as a stream of patches, for loading it into an engine a piece at a time: a value
// of at most SLICE_NODES nodes goes whole (the engine's parser lays it out exactly); a larger object
// becomes an empty object and then its members; a larger array goes whole all the same (in the
// compiled format arrays are a bucket's grants or a role's rules). Members are read when their turn
// comes, so a document that changes while it is streamed yields its newer values; the caller replays
// the changes made meanwhile (patches are absolute, so a replay in order lands on the document as
// it is now).
import type { DataPatch } from './format.ts';

/** Keys, elements and scalars per slice: a few tens of KB of JSON, well under a millisecond to parse. */
const SLICE_NODES = 1024;

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Nodes of a value, counted until `limit` is passed (so a huge value costs no more than a small one). */
function nodesUpTo(v: unknown, limit: number): number {
  if (typeof v !== 'object' || v === null) return 1;
  let n = 1;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length && n <= limit; i++) n += nodesUpTo(v[i], limit - n);
    return n;
  }
  // for…in, not Object.values: a member object of 100,000 keys is not copied to be counted to 1,024
  for (const k in v) {
    n += 1 + nodesUpTo((v as Record<string, unknown>)[k], limit - n);
    if (n > limit) break;
  }
  return n;
}

function* slicesAt(value: unknown, path: string[]): Generator<DataPatch> {
  if (value === undefined) return; // a member gone since its object's keys were read
  if (!isRecord(value) || nodesUpTo(value, SLICE_NODES) <= SLICE_NODES) {
    yield { path, value };
    return;
  }
  yield { path, value: {} };
  for (const k of Object.keys(value)) yield* slicesAt(value[k], [...path, k]);
}

/** The patches that build `data` (a JSON object) slice by slice onto an empty document. */
export function* dataSlices(data: unknown): Generator<DataPatch> {
  if (!isRecord(data)) throw new Error('policy data must be a JSON object');
  for (const k of Object.keys(data)) yield* slicesAt(data[k], [k]);
}
