// Scenario `proxy`: a hello-world upstream (scripts/bench/baseline-server.mjs) measured directly, then
// through `portcullis proxy` (a real child process: bearer token + RBAC objects, bearer token + ABAC,
// and delegation to a running Portcullis server with cached and uncached answers), then through
// Debian's nginx as a plain reverse proxy when it is installed (plain HTTP and terminating TLS, beside
// the proxy terminating TLS with the same certificate), and through the smallest node:http reverse
// proxy (node-proxy-floor.mjs: the runtime's floor for anything built on node:http) — all in the
// same run, 50 keep-alive connections from wrk (else autocannon) in a process of its own, best of 2
// interleaved rounds (PROXY_ROUNDS), every other one in reverse order, so that a drift of this VM's
// speed over a round does not always favour the same setups.
// Target: ≥ 60 % of direct with cached decisions. Needs `npm run build` first (the proxy runs from dist/).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startChild } from './child.ts';
import { loadName, runLoad } from './load-gen.ts';

const duration = Number(process.env.BENCH_SECONDS ?? 5);
const warmup = Number(process.env.BENCH_WARMUP_SECONDS ?? 2);
const TOKEN = 'bench-proxy-token-0123456789abcdef';
const ROUNDS = Number(process.env.PROXY_ROUNDS ?? 2);

interface Figure { rps: number; p99: number; errors: number }

async function measure(url: string, headers: Record<string, string>): Promise<Figure> {
  await runLoad({ url, headers, seconds: warmup });
  const r = await runLoad({ url, headers, seconds: duration });
  // every answer must be a 2xx (a 401/403 would be measured as throughput); a connection error or
  // timeout now and then (one in hundreds of thousands was seen, at random setups) is reported, not fatal
  if (r.non2xx > 0 || !(r.rps > 0) || r.errors > r.requests / 1000) throw new Error(`${url}: ${r.non2xx} non-2xx responses, ${r.errors} errors of ${r.requests}`);
  return { rps: r.rps, p99: r.p99, errors: r.errors };
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** A child that listens on a known port: ready when a TCP connect succeeds. */
async function startOnPort(cmd: string, args: string[], port: number): Promise<ChildProcess> {
  const child = spawn(cmd, args, { stdio: ['ignore', 'ignore', 'inherit'] });
  for (let i = 0; i < 200; i++) {
    if (child.exitCode !== null) throw new Error(`${cmd} ${args.join(' ')} exited with ${child.exitCode}`);
    try {
      await fetch(`http://127.0.0.1:${port}/`);
      return child;
    } catch {
      await sleep(50);
    }
  }
  child.kill();
  throw new Error(`${cmd} did not listen on ${port}`);
}

// the compiled build, as users run it (`npm run build` first)
const portcullis = (args: string[], port: number): Promise<ChildProcess> => startOnPort(process.execPath, ['dist/main.js', ...args], port);

export default async function run(): Promise<void> {
  if (!existsSync('dist/main.js')) throw new Error('proxy needs the compiled build: run `npm run build` first');
  console.log(`proxy: load from ${loadName()}, best of ${ROUNDS} interleaved rounds of ${duration} s (+${warmup} s warm-up each)`);
  const dir = mkdtempSync(join(tmpdir(), 'portcullis-bench-proxy-'));
  const tokens = join(dir, 'tokens.csv');
  writeFileSync(tokens, `${TOKEN},bench,uid-bench\nbench-proxy-self-token-0123456789,proxy,uid-proxy\n`, { mode: 0o600 });
  const abac = join(dir, 'policy.jsonl');
  const line = (spec: object): string => JSON.stringify({ apiVersion: 'abac.authorization.platform.io/v1beta1', kind: 'Policy', spec });
  writeFileSync(abac, `${line({ user: 'bench', nonResourcePath: '*' })}\n${line({ user: 'proxy', namespace: '*', resource: '*', apiGroup: '*' })}\n`);
  const rbac = join(dir, 'rbac.yaml');
  writeFileSync(rbac, [
    'apiVersion: rbac.authorization.platform.io/v1alpha1', 'kind: ClusterRole', 'metadata: {name: hello}',
    'rules: [{verbs: [get], nonResourceURLs: ["/*"]}]', '---',
    'apiVersion: rbac.authorization.platform.io/v1alpha1', 'kind: ClusterRoleBinding', 'metadata: {name: hello}',
    'roleRef: {apiGroup: rbac.authorization.platform.io, kind: ClusterRole, name: hello}',
    'subjects: [{kind: User, name: bench}]', '',
  ].join('\n'));

  const children: ChildProcess[] = [];
  try {
    const up = await startChild(process.execPath, ['scripts/bench/baseline-server.mjs']);
    children.push(up.child);
    const apiPort = await freePort();
    children.push(await portcullis([`--insecure-port=${apiPort}`, '--insecure-bind-address=127.0.0.1', '--authorization-mode=ABAC', `--authorization-policy-file=${abac}`,
      `--token-auth-file=${tokens}`, '--runtime-config=authentication.platform.io/v1beta1=true,authorization.platform.io/v1beta1=true'], apiPort));
    const kubeconfig = join(dir, 'kubeconfig');
    writeFileSync(kubeconfig, `apiVersion: v1\nkind: Config\ncurrent-context: c\nclusters: [{name: c, cluster: {server: "http://127.0.0.1:${apiPort}"}}]\nusers: [{name: u, user: {token: bench-proxy-self-token-0123456789}}]\ncontexts: [{name: c, context: {cluster: c, user: u}}]\n`);

    const proxies: Array<[string, string[]]> = [
      // forwarding alone: an ignore path (no authentication, no authorization)
      ['proxy ignore path (forwarding only)', [`--token-auth-file=${tokens}`, `--rbac=${rbac}`, '--ignore-paths=/hello']],
      ['proxy token+RBAC', [`--token-auth-file=${tokens}`, `--rbac=${rbac}`]],
      // two processes on the listening port (node:cluster): the second core
      ['proxy token+RBAC, 2 workers', [`--token-auth-file=${tokens}`, `--rbac=${rbac}`, '--workers=2']],
      ['proxy token+ABAC', [`--token-auth-file=${tokens}`, `--policy-file=${abac}`]],
      ['proxy delegation, cached', [`--kubeconfig=${kubeconfig}`]],
      ['proxy delegation, uncached', [`--kubeconfig=${kubeconfig}`, '--delegation-allowed-ttl=0', '--delegation-denied-ttl=0']],
    ];
    const targets: Array<[string, string]> = [['direct', `${up.url}/`]];
    // the runtime's floor: the smallest node:http keep-alive reverse proxy, nothing checked
    const floorPort = await freePort();
    children.push(await startOnPort(process.execPath, ['scripts/bench/node-proxy-floor.mjs', String(floorPort), up.url], floorPort));
    targets.push(['node:http minimal reverse proxy (no auth; the runtime\'s floor)', `http://127.0.0.1:${floorPort}/hello`]);
    // the floor of the parser the proxy's own HTTP/1.1 layer runs on: llhttp on raw sockets, nothing checked
    const llhttpPort = await freePort();
    children.push(await startOnPort(process.execPath, ['scripts/bench/llhttp-proxy-floor.mjs', String(llhttpPort), up.url], llhttpPort));
    targets.push(['llhttp minimal reverse proxy (no auth, no HTTP handling; the floor on Node)', `http://127.0.0.1:${llhttpPort}/hello`]);
    for (const [name, args] of proxies) {
      const port = await freePort();
      children.push(await portcullis(['proxy', `--upstream=${up.url}`, `--insecure-listen-address=127.0.0.1:${port}`, ...args], port));
      targets.push([name, `http://127.0.0.1:${port}/hello`]);
    }
    // TLS on the caller's side (autocannon does not verify the certificate); the upstream stays plain
    const cert = join(dir, 'tls.crt');
    const key = join(dir, 'tls.key');
    const tls = spawnSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1',
      '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', key, '-out', cert], { stdio: 'ignore' }).status === 0;
    if (tls) {
      const port = await freePort();
      const plain = await freePort();
      // the secure listener is measured; the plain one only tells when it is up
      children.push(await portcullis(['proxy', `--upstream=${up.url}`, `--secure-listen-address=127.0.0.1:${port}`, `--insecure-listen-address=127.0.0.1:${plain}`,
        `--tls-cert-file=${cert}`, `--tls-private-key-file=${key}`, `--token-auth-file=${tokens}`, `--rbac=${rbac}`], plain));
      targets.push(['proxy token+RBAC over TLS', `https://127.0.0.1:${port}/hello`]);
    } else console.log('proxy TLS: openssl could not make a certificate, TLS setups skipped');
    const nginx = ['/usr/sbin/nginx', '/usr/bin/nginx'].find((p) => existsSync(p));
    if (nginx) {
      // one worker, as the proxy is one process (and two beside the proxy's two workers); TLS as the proxy's defaults (TLS 1.2+)
      const location = 'location / { proxy_pass http://up; proxy_http_version 1.1; proxy_set_header Connection ""; }';
      const nginxConf = (workers: number, plainPort: number, securePort: number): string => `daemon off; worker_processes ${workers}; pid ${dir}/nginx-${workers}.pid; error_log ${dir}/nginx-error.log;
events { worker_connections 1024; }
http { access_log off; client_body_temp_path ${dir}; proxy_temp_path ${dir}; fastcgi_temp_path ${dir}; uwsgi_temp_path ${dir}; scgi_temp_path ${dir};
  upstream up { server ${up.url.replace('http://', '')}; keepalive 64; }
  server { listen 127.0.0.1:${plainPort}; ${location} }
  ${tls ? `server { listen 127.0.0.1:${securePort} ssl; ssl_certificate ${cert}; ssl_certificate_key ${key}; ssl_protocols TLSv1.2 TLSv1.3; ${location} }` : ''} }\n`;
      for (const workers of [1, 2]) {
        const port = await freePort();
        const tlsPort = await freePort();
        const conf = join(dir, `nginx-${workers}.conf`);
        writeFileSync(conf, nginxConf(workers, port, tlsPort));
        const label = workers === 1 ? 'nginx reverse proxy' : 'nginx reverse proxy, 2 workers';
        if (spawnSync(nginx, ['-t', '-c', conf], { stdio: 'ignore' }).status === 0) {
          children.push(await startOnPort(nginx, ['-c', conf], port));
          targets.push([label, `http://127.0.0.1:${port}/hello`]);
          if (tls && workers === 1) targets.push([`${label} over TLS`, `https://127.0.0.1:${tlsPort}/hello`]);
        } else console.log(`proxy nginx: config test failed, ${label} skipped`);
      }
    } else {
      console.log('proxy nginx: not installed, skipped');
    }

    const best = new Map<string, Figure>();
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? targets : [...targets].reverse();
      for (const [name, url] of order) {
        const f = await measure(url, name === 'direct' || name.startsWith('nginx') || name.startsWith('node:http') || name.startsWith('llhttp') || name.includes('ignore') ? {} : { authorization: `Bearer ${TOKEN}` });
        const prior = best.get(name);
        if (!prior || f.rps > prior.rps) best.set(name, f);
      }
    }
    const direct = best.get('direct')!;
    console.log(`proxy direct hello-world: ${direct.rps.toFixed(0)} req/s, p99 ${direct.p99} ms`);
    for (const [name] of targets.slice(1)) {
      const f = best.get(name)!;
      console.log(`${name}: ${f.rps.toFixed(0)} req/s (${((f.rps / direct.rps) * 100).toFixed(1)}% of direct), p99 ${f.p99} ms (${(f.p99 / Math.max(direct.p99, 1)).toFixed(1)}x direct)${f.errors ? `; ${f.errors} connection errors` : ''}`);
    }
  } finally {
    // proxies first, the upstream last: no request of a proxy meets a closed upstream
    for (const c of children.reverse()) c.kill();
  }
}
