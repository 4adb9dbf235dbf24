// The `e2e` scenario's yardstick for CREATE: etcd (Debian etcd-server), the store the reference API
// server keeps its objects in, doing one durable put per request over TLS through its native gRPC API,
// driven by h2load (Debian nghttp2-client) with the same 50 connections, one request in flight on
// each. A create through the reference server is such a put plus that server's own work, so what
// etcd's put alone reaches on this machine bounds what any server storing in it can. h2load spends
// more CPU per request than wrk (about 96 µs against 56 µs here), CPU the two cores then lack for
// etcd: the line is a lower bound for etcd.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request as httpsRequest } from 'node:https';
import protobuf from 'protobufjs';
import { startEtcd } from '../../test/helpers/etcd.ts';
import type { LoadResult } from './load-gen.ts';

export interface EtcdPutLine {
  /** The etcd process (its CPU time is read). */
  pid: number;
  /** One timed run of puts; throws when etcd did not store every answered put. */
  load(seconds: number): Promise<LoadResult>;
  stop(): Promise<void>;
}

/** Whether h2load is installed. */
export function haveH2load(): boolean {
  try {
    execFileSync('h2load', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Starts etcd serving TLS with `cert`/`key`; each put stores `value` (a ConfigMap's JSON) under one key. */
export async function startEtcdPutLine(cert: string, key: string, storageKey: string, value: string): Promise<EtcdPutLine> {
  const etcd = await startEtcd(1, { serverCert: { certFile: cert, keyFile: key } });
  const url = etcd.endpoints[0];
  const ca = readFileSync(cert);
  // etcdserverpb.PutRequest { bytes key = 1; bytes value = 2; }, in gRPC's length-prefixed frame
  const message = protobuf.Writer.create().uint32((1 << 3) | 2).bytes(Buffer.from(storageKey)).uint32((2 << 3) | 2).bytes(Buffer.from(value)).finish();
  const frame = Buffer.alloc(5 + message.length);
  frame.writeUInt32BE(message.length, 1);
  frame.set(message, 5);
  // h2load reads the request body from a file
  const dir = mkdtempSync(join(tmpdir(), 'portcullis-etcd-put-'));
  const bodyFile = join(dir, 'put.bin');
  writeFileSync(bodyFile, frame);
  const version = () => keyVersion(url, ca, storageKey);
  return {
    pid: etcd.members[0].pid()!,
    async load(seconds) {
      const before = await version();
      const result = await h2load(`${url}/etcdserverpb.KV/Put`, bodyFile, seconds);
      // gRPC answers a failed put with HTTP 200 and a status in the trailers, which h2load does not
      // read: the key's version counts the puts etcd really stored
      const stored = (await version()) - before;
      if (stored < result.requests) throw new Error(`etcd put line: ${result.requests} puts answered, only ${stored} stored`);
      return result;
    },
    async stop() {
      rmSync(dir, { recursive: true, force: true });
      await etcd.stop();
    },
  };
}

/** The number of puts the key has had (etcd's per-key `version`; 0 when absent), via the JSON gateway. */
function keyVersion(url: string, ca: Buffer, storageKey: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(`${url}/v3/kv/range`, { method: 'POST', ca }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => {
        const body = JSON.parse(text) as { kvs?: { version?: string }[] };
        resolve(Number(body.kvs?.[0]?.version ?? 0));
      });
    });
    req.on('error', reject);
    req.end(JSON.stringify({ key: Buffer.from(storageKey).toString('base64') }));
  });
}

/** h2load: 50 connections, 2 threads, one stream in flight per connection, for `seconds`. */
function h2load(url: string, bodyFile: string, seconds: number): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const child = spawn('h2load', ['-c50', '-m1', '-t2', '-D', String(seconds), '-d', bodyFile, '-H', 'content-type: application/grpc', '-H', 'te: trailers', url], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.on('error', reject);
    child.on('exit', () => {
      const rps = Number(/finished in [\d.]+s, ([\d.]+) req\/s/.exec(out)?.[1] ?? NaN);
      const counts = /requests: \d+ total, \d+ started, \d+ done, (\d+) succeeded, (\d+) failed, (\d+) errored, (\d+) timeout/.exec(out);
      const non2xx = /status codes: \d+ 2xx, (\d+) 3xx, (\d+) 4xx, (\d+) 5xx/.exec(out);
      if (!counts || !non2xx || !(rps >= 0)) return reject(new Error(`h2load output not understood:\n${out}`));
      resolve({
        rps,
        p99: NaN, // h2load prints no percentiles
        non2xx: Number(non2xx[2]) + Number(non2xx[3]),
        errors: Number(counts[2]) + Number(counts[3]) + Number(counts[4]),
        requests: Number(counts[1]),
      });
    });
  });
}
