// OPA bundles: tar.gz with /.manifest (naming the wasm entrypoints), /policy.wasm and /data.json.
import { createGzip, gunzipSync } from 'node:zlib';
import { Readable } from 'node:stream';
import tar from 'tar-stream';
import { ENGINE_ENTRYPOINT } from './evaluator.ts';

export interface BundleManifest {
  revision?: string;
  roots?: string[];
  wasm?: { entrypoint: string; module: string }[];
  [k: string]: unknown;
}

export interface Bundle {
  manifest: BundleManifest;
  /** Module path (e.g. "/policy.wasm") → bytes. */
  wasm: Map<string, Uint8Array>;
  data: unknown;
}

/** Normalizes tar names ("/policy.wasm", "./policy.wasm", "policy.wasm") to "/policy.wasm". */
function norm(name: string): string {
  return '/' + name.replace(/^\.?\/+/, '');
}

export async function readBundle(bytes: Uint8Array): Promise<Bundle> {
  const raw = bytes[0] === 0x1f && bytes[1] === 0x8b ? gunzipSync(bytes) : Buffer.from(bytes);
  const files = new Map<string, Buffer>();
  const extract = tar.extract();
  const done = new Promise<void>((resolve, reject) => {
    extract.on('entry', (header, stream, next) => {
      const chunks: Buffer[] = [];
      stream.on('data', (c: unknown) => { chunks.push(c as Buffer); });
      stream.on('end', () => { if (header.type === 'file') files.set(norm(header.name), Buffer.concat(chunks)); next(); });
      stream.on('error', reject);
    });
    extract.on('finish', resolve);
    extract.on('error', reject);
  });
  Readable.from([raw]).pipe(extract);
  await done;
  const manifestBytes = files.get('/.manifest');
  const manifest: BundleManifest = manifestBytes ? JSON.parse(manifestBytes.toString('utf8')) : {};
  const wasm = new Map<string, Uint8Array>();
  for (const w of manifest.wasm ?? []) {
    const b = files.get(norm(w.module));
    if (b) wasm.set(norm(w.module), b);
  }
  if (wasm.size === 0 && files.has('/policy.wasm')) wasm.set('/policy.wasm', files.get('/policy.wasm')!);
  if (wasm.size === 0) throw new Error('bundle has no WebAssembly module (/policy.wasm)');
  // Data: /data.json at the root plus nested data.json files mounted at their directory path.
  let data: Record<string, unknown> = {};
  for (const [name, b] of files) {
    if (!name.endsWith('/data.json')) continue;
    const doc = JSON.parse(b.toString('utf8')) as unknown;
    const dirs = name.split('/').slice(1, -1);
    if (dirs.length === 0) data = { ...data, ...(doc as Record<string, unknown>) };
    else {
      let cur = data;
      for (const d of dirs.slice(0, -1)) cur = (cur[d] ??= {}) as Record<string, unknown>;
      cur[dirs[dirs.length - 1]] = doc;
    }
  }
  return { manifest, wasm, data };
}

/** The module for an entrypoint (or the first one). */
export function bundleModule(b: Bundle, entrypoint?: string): Uint8Array {
  const entry = entrypoint ? b.manifest.wasm?.find((w) => w.entrypoint === entrypoint) : b.manifest.wasm?.[0];
  const mod = entry ? b.wasm.get(norm(entry.module)) : undefined;
  return mod ?? b.wasm.values().next().value!;
}

export async function writeBundle(wasm: Uint8Array, data: unknown, opts: { revision?: string; entrypoints?: string[] } = {}): Promise<Buffer> {
  const manifest: BundleManifest = {
    revision: opts.revision ?? '',
    roots: [''],
    wasm: (opts.entrypoints ?? [ENGINE_ENTRYPOINT, 'portcullis/allowed']).map((entrypoint) => ({ entrypoint, module: '/policy.wasm' })),
  };
  const pack = tar.pack();
  const mtime = new Date(0); // reproducible bundles
  pack.entry({ name: '/.manifest', mtime }, JSON.stringify(manifest));
  pack.entry({ name: '/data.json', mtime }, JSON.stringify(data));
  pack.entry({ name: '/policy.wasm', mtime }, Buffer.from(wasm));
  pack.finalize();
  const chunks: Buffer[] = [];
  const gz = pack.pipe(createGzip());
  for await (const c of gz) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}
