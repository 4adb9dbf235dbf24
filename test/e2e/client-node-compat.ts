// @kubernetes/client-node 2.x bundles undici 8, which expects Node.js 22 (zlib.createZstdDecompress,
// worker_threads.markAsUncloneable, Promise.withResolvers). On Node 20 these are filled in before the
// library loads: none of them is on the paths the tests use (no zstd bodies, no structured cloning).
import zlib from 'node:zlib';
import workerThreads from 'node:worker_threads';

type ClientNode = typeof import('@kubernetes/client-node');

function fill(target: object, name: string, value: unknown): void {
  const rec = target as Record<string, unknown>;
  if (rec[name] === undefined) rec[name] = value;
}

export async function loadClientNode(): Promise<ClientNode> {
  fill(zlib, 'createZstdDecompress', () => {
    throw new Error('zstd is not supported by this Node.js');
  });
  fill(workerThreads, 'markAsUncloneable', () => {});
  fill(Promise, 'withResolvers', function withResolvers<T>() {
    let resolve!: (v: T) => void;
    let reject!: (e: unknown) => void;
    const promise = new Promise<T>((a, b) => {
      resolve = a;
      reject = b;
    });
    return { promise, resolve, reject };
  });
  return import('@kubernetes/client-node');
}
