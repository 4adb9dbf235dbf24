// Starts real etcd processes on loopback for tests and benchmarks: free ports, a temp data dir, and
// a kill at the end (and at process exit, so a crashed test leaves nothing running). etcd missing is
// an error, never a skip: CI installs Debian `etcd-server` (/usr/bin/etcd).
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const etcdBinary = process.env.ETCD_BIN ?? '/usr/bin/etcd';

export interface EtcdMember {
  name: string;
  clientUrl: string;
  /** Stops this member (SIGKILL) and waits for it to exit. */
  stop(): Promise<void>;
  /** Starts a stopped member again on its data dir and ports; resolves once it is healthy. */
  restart(): Promise<void>;
}

export interface EtcdCluster {
  /** Client URLs of all members. */
  endpoints: string[];
  members: EtcdMember[];
  /** Stops every member and removes the data dirs. */
  stop(): Promise<void>;
}

const running = new Set<ChildProcess>();
const dataDirs = new Set<string>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
});

function canBind(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * A free port below the kernel's ephemeral range (32768+): a port taken from that range can be handed
 * to some client's outgoing connection before etcd binds it.
 */
async function freePort(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if (await canBind(port)) return port;
  }
}

async function waitHealthy(clientUrl: string, child: ChildProcess, output: () => string, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`etcd exited with ${child.exitCode}:\n${output()}`);
    try {
      const res = await fetch(`${clientUrl}/health`);
      const body = (await res.json()) as { health?: string };
      if (body.health === 'true') return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`etcd at ${clientUrl} not healthy after ${timeoutMs} ms:\n${output()}`);
}

function waitExit(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/** Starts a `size`-member etcd cluster (1 by default) and resolves once every member is healthy. */
export async function startEtcd(size = 1): Promise<EtcdCluster> {
  // a port can still be taken between the check and etcd's bind: start again on fresh ports
  for (let attempt = 1; ; attempt++) {
    try {
      return await startEtcdOnce(size);
    } catch (e) {
      if (attempt >= 3 || !(e instanceof Error && /address already in use/.test(e.message))) throw e;
    }
  }
}

async function startEtcdOnce(size: number): Promise<EtcdCluster> {
  if (!existsSync(etcdBinary)) {
    throw new Error(`etcd binary not found at ${etcdBinary}: install the Debian package etcd-server (or set ETCD_BIN)`);
  }
  const baseDir = await mkdtemp(join(tmpdir(), 'portcullis-etcd-'));
  dataDirs.add(baseDir);
  const specs = [];
  for (let i = 0; i < size; i++) {
    specs.push({ name: `m${i}`, clientUrl: `http://127.0.0.1:${await freePort()}`, peerUrl: `http://127.0.0.1:${await freePort()}` });
  }
  const initialCluster = specs.map((s) => `${s.name}=${s.peerUrl}`).join(',');
  const token = `portcullis-${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2)}`;

  const children = new Set<ChildProcess>();
  const launch = (args: string[]) => {
    const child = spawn(etcdBinary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let log = '';
    const keep = (chunk: Buffer) => {
      log = (log + chunk.toString()).slice(-4000);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    running.add(child);
    children.add(child);
    child.once('exit', () => {
      running.delete(child);
      children.delete(child);
    });
    return { child, output: () => log };
  };

  const started = specs.map((spec) => {
    const args = [
      `--name=${spec.name}`,
      `--data-dir=${join(baseDir, spec.name)}`,
      `--listen-client-urls=${spec.clientUrl}`,
      `--advertise-client-urls=${spec.clientUrl}`,
      `--listen-peer-urls=${spec.peerUrl}`,
      `--initial-advertise-peer-urls=${spec.peerUrl}`,
      `--initial-cluster=${initialCluster}`,
      `--initial-cluster-token=${token}`,
      '--initial-cluster-state=new',
      // Fast elections on loopback keep the failover test short.
      '--heartbeat-interval=50',
      '--election-timeout=500',
      '--logger=zap',
      '--log-level=error',
    ];
    let current = launch(args);
    const member: EtcdMember = {
      name: spec.name,
      clientUrl: spec.clientUrl,
      stop: async () => {
        current.child.kill('SIGKILL');
        await waitExit(current.child);
      },
      restart: async () => {
        current = launch(args); // an existing data dir makes etcd ignore the --initial-* flags
        await waitHealthy(spec.clientUrl, current.child, current.output, 20_000);
      },
    };
    return { member, ...current };
  });

  const stop = async () => {
    await Promise.all([...children].map((c) => (c.kill('SIGKILL'), waitExit(c))));
    await rm(baseDir, { recursive: true, force: true });
    dataDirs.delete(baseDir);
  };
  try {
    await Promise.all(started.map((s) => waitHealthy(s.member.clientUrl, s.child, s.output, 20_000)));
  } catch (error) {
    await stop();
    throw error;
  }
  return { endpoints: started.map((s) => s.member.clientUrl), members: started.map((s) => s.member), stop };
}
