// Starts real etcd processes on loopback for tests and benchmarks: free ports, a temp data dir, and
// a kill at the end (and at process exit, so a crashed test leaves nothing running). etcd missing is
// an error, never a skip: CI installs Debian `etcd-server` (/usr/bin/etcd).
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCa, issueCert } from '../../src/certs/issue.ts';

export const etcdBinary = process.env.ETCD_BIN ?? '/usr/bin/etcd';

export interface EtcdMember {
  name: string;
  clientUrl: string;
  /** Stops this member (SIGKILL) and waits for it to exit. */
  stop(): Promise<void>;
  /** Starts a stopped member again on its data dir and ports; resolves once it is healthy. */
  restart(): Promise<void>;
  /** The running process's id (its CPU time is read by benchmarks). */
  pid(): number | undefined;
  /** Freezes the running member (SIGSTOP): its sockets stay open but it answers nothing. */
  pause(): void;
  /** Lets a paused member run again (SIGCONT). */
  resume(): void;
}

/** PEM files of a TLS etcd: its CA, and a client certificate it accepts. */
export interface EtcdClientTls {
  caFile: string;
  certFile: string;
  keyFile: string;
}

export interface EtcdOptions {
  /**
   * Serve clients over TLS and require a client certificate signed by the cluster's own CA
   * (`--client-cert-auth`); the cluster's `tls` holds the files a client needs.
   */
  tls?: boolean;
  /**
   * Serve clients over TLS with this certificate and key and ask clients for none (a load generator
   * such as wrk cannot present one). Not with `tls`.
   */
  serverCert?: { certFile: string; keyFile: string };
}

export interface EtcdCluster {
  /** Client URLs of all members (https:// with `tls`). */
  endpoints: string[];
  /** With `tls`: the CA and a client certificate for the members. */
  tls?: EtcdClientTls;
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

/** etcd's /health over TLS, trusting `caFile`, with the client certificate if any (fetch cannot present one). */
function tlsHealth(url: string, tls: Partial<EtcdClientTls> & { caFile: string }): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      url,
      { ca: readFileSync(tls.caFile), cert: tls.certFile && readFileSync(tls.certFile), key: tls.keyFile && readFileSync(tls.keyFile) },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve(body));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

async function waitHealthy(clientUrl: string, child: ChildProcess, output: () => string, timeoutMs: number, tls?: Partial<EtcdClientTls> & { caFile: string }) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`etcd exited with ${child.exitCode}:\n${output()}`);
    try {
      const text = tls ? await tlsHealth(`${clientUrl}/health`, tls) : await (await fetch(`${clientUrl}/health`)).text();
      const body = JSON.parse(text) as { health?: string };
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
export async function startEtcd(size = 1, options: EtcdOptions = {}): Promise<EtcdCluster> {
  // a port can still be taken between the check and etcd's bind: start again on fresh ports
  for (let attempt = 1; ; attempt++) {
    try {
      return await startEtcdOnce(size, options);
    } catch (e) {
      if (attempt >= 3 || !(e instanceof Error && /address already in use/.test(e.message))) throw e;
    }
  }
}

/** A CA, a serving certificate for loopback and a client certificate, written under `dir`. */
function writeEtcdPki(dir: string): { server: { certFile: string; keyFile: string }; client: EtcdClientTls } {
  mkdirSync(dir, { recursive: true });
  const ca = createCa('etcd-test-ca');
  const server = issueCert(ca, { cn: 'etcd', usage: 'server', hosts: ['127.0.0.1', 'localhost'] });
  const client = issueCert(ca, { cn: 'portcullis', usage: 'client' });
  const file = (name: string, pem: string) => {
    const path = join(dir, name);
    writeFileSync(path, pem, { mode: 0o600 });
    return path;
  };
  return {
    server: { certFile: file('server.crt', server.certPem), keyFile: file('server.key', server.keyPem) },
    client: { caFile: file('ca.crt', ca.certPem), certFile: file('client.crt', client.certPem), keyFile: file('client.key', client.keyPem) },
  };
}

async function startEtcdOnce(size: number, options: EtcdOptions): Promise<EtcdCluster> {
  if (!existsSync(etcdBinary)) {
    throw new Error(`etcd binary not found at ${etcdBinary}: install the Debian package etcd-server (or set ETCD_BIN)`);
  }
  const baseDir = await mkdtemp(join(tmpdir(), 'portcullis-etcd-'));
  dataDirs.add(baseDir);
  if (options.tls && options.serverCert) throw new Error('startEtcd: tls and serverCert exclude each other');
  const pki = options.tls ? writeEtcdPki(join(baseDir, 'pki')) : undefined;
  const given = options.serverCert;
  // how the health check reaches a member: the client PKI, or trusting the given (self-signed) certificate
  const healthTls = pki?.client ?? (given && { caFile: given.certFile });
  const clientScheme = pki || given ? 'https' : 'http';
  const specs = [];
  for (let i = 0; i < size; i++) {
    specs.push({ name: `m${i}`, clientUrl: `${clientScheme}://127.0.0.1:${await freePort()}`, peerUrl: `http://127.0.0.1:${await freePort()}` });
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
      ...(pki
        ? [`--cert-file=${pki.server.certFile}`, `--key-file=${pki.server.keyFile}`, `--trusted-ca-file=${pki.client.caFile}`, '--client-cert-auth']
        : []),
      ...(given ? [`--cert-file=${given.certFile}`, `--key-file=${given.keyFile}`] : []),
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
        await waitHealthy(spec.clientUrl, current.child, current.output, 20_000, healthTls);
      },
      pid: () => current.child.pid,
      pause: () => void current.child.kill('SIGSTOP'),
      resume: () => void current.child.kill('SIGCONT'),
    };
    return { member, ...current };
  });

  const stop = async () => {
    await Promise.all([...children].map((c) => (c.kill('SIGKILL'), waitExit(c))));
    await rm(baseDir, { recursive: true, force: true });
    dataDirs.delete(baseDir);
  };
  try {
    await Promise.all(started.map((s) => waitHealthy(s.member.clientUrl, s.child, s.output, 20_000, healthTls)));
  } catch (error) {
    await stop();
    throw error;
  }
  return { endpoints: started.map((s) => s.member.clientUrl), tls: pki?.client, members: started.map((s) => s.member), stop };
}

/** The member that currently leads a plain-HTTP cluster (from etcd's JSON gateway; every member must answer). */
export async function etcdLeader(etcd: EtcdCluster): Promise<EtcdMember> {
  const ids = new Map<string, EtcdMember>();
  let leader = '';
  for (const member of etcd.members) {
    const res = await fetch(`${member.clientUrl}/v3/maintenance/status`, { method: 'POST', body: '{}', signal: AbortSignal.timeout(5_000) });
    const status = (await res.json()) as { header: { member_id: string }; leader: string };
    ids.set(status.header.member_id, member);
    leader ||= status.leader;
  }
  const member = ids.get(leader);
  if (!member) throw new Error(`etcd reports leader ${leader}, not one of the members`);
  return member;
}
