// kubectl 1.32 against an RBAC server over HTTPS whose node points at a stand-in kubelet: logs (-f,
// --tail, --since, --limit-bytes), exec over WebSocket (v5.channel.k8s.io), get --raw through the
// proxy subresources; and each refused with 403 for a user who may read pods but not the subresource.
import test, { type ExecutionContext } from 'ava';
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { connect } from 'node:net';
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { initDevPki } from '../../src/certs/pki.ts';
import { startServer, type TestServer } from '../helpers/server.ts';
import { kubectlFor } from '../helpers/kubectl.ts';
import { startStandInKubelet, type StandInKubelet } from '../helpers/stand-in-kubelet.ts';

let s: TestServer;
let k: StandInKubelet;
let kc: ReturnType<typeof kubectlFor>;
let server: string;
let caCert: string;
const NS = 'default';
const RBAC_REASON = ': RBAC: no RoleBinding or ClusterRoleBinding grants it';

test.before(async () => {
  k = await startStandInKubelet();
  const dir = mkdtempSync(join(tmpdir(), 'kubectl-streaming-'));
  const pki = initDevPki(join(dir, 'pki'));
  caCert = pki.caCert;
  const file = (name: string, text: string) => {
    writeFileSync(join(dir, name), text);
    return join(dir, name);
  };
  s = await startServer({
    insecurePort: undefined,
    securePort: 0,
    bindAddress: '127.0.0.1',
    tlsCertFile: pki.servingCert,
    tlsPrivateKeyFile: pki.servingKey,
    authorizationMode: ['RBAC'],
    tokenAuthFile: file('tokens.csv', 'admin-token,admin,1,system:masters\nviewer-token,viewer,2\ngetter-token,getter,3\n'),
    kubeletCertificateAuthority: file('kubelet-ca.crt', k.ca.certPem),
    kubeletClientCertificate: file('kubelet-client.crt', k.client.certPem),
    kubeletClientKey: file('kubelet-client.key', k.client.keyPem),
  });
  server = s.server.secureUrl!;
  kc = kubectlFor(server, [`--certificate-authority=${caCert}`]);
  const apply = async (manifest: string) => {
    const r = await kc.run(['--token=admin-token', 'apply', '--validate=false', '-f', kc.file(`m${Math.random()}.yaml`, manifest)]);
    if (r.code !== 0) throw new Error(r.stderr);
  };
  await apply(`apiVersion: v1
kind: Node
metadata: {name: n1}
---
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: ${NS}}
spec:
  nodeName: n1
  containers: [{name: c, image: busybox}]
---
apiVersion: rbac.authorization.platform.io/v1alpha1
kind: Role
metadata: {name: pod-reader, namespace: ${NS}}
rules: [{apiGroups: [""], resources: [pods], verbs: [get, list]}]
---
apiVersion: rbac.authorization.platform.io/v1alpha1
kind: RoleBinding
metadata: {name: viewer-reads-pods, namespace: ${NS}}
roleRef: {apiGroup: rbac.authorization.platform.io, kind: Role, name: pod-reader}
subjects: [{kind: User, name: viewer}, {kind: User, name: getter}]
---
apiVersion: rbac.authorization.platform.io/v1alpha1
kind: Role
metadata: {name: exec-getter, namespace: ${NS}}
rules: [{apiGroups: [""], resources: [pods/exec], verbs: [get]}]
---
apiVersion: rbac.authorization.platform.io/v1alpha1
kind: RoleBinding
metadata: {name: getter-gets-exec, namespace: ${NS}}
roleRef: {apiGroup: rbac.authorization.platform.io, kind: Role, name: exec-getter}
subjects: [{kind: User, name: getter}]
`);
  // status is written as the kubelet would: its addresses and port, the pod's IP
  const put = async (path: string, mutate: (o: Record<string, unknown>) => void) => {
    const got = await kc.run(['--token=admin-token', 'get', '--raw', path]);
    const o = JSON.parse(got.stdout) as Record<string, unknown>;
    mutate(o);
    const r = await kc.run(['--token=admin-token', 'replace', '--subresource=status', '-f', kc.file(`s${Math.random()}.json`, JSON.stringify(o))]);
    if (r.code !== 0) throw new Error(r.stderr);
  };
  await put('/api/v1/nodes/n1', (o) => (o.status = { addresses: [{ type: 'InternalIP', address: k.hostAddress }], daemonEndpoints: { kubeletEndpoint: { Port: k.port } } }));
  await put(`/api/v1/namespaces/${NS}/pods/p`, (o) => (o.status = { phase: 'Running', podIP: k.hostAddress }));
});
test.after.always(async () => {
  await s?.close();
  await k?.close();
});

const admin = (args: string[], stdin?: string) => kc.run(['--token=admin-token', ...args], stdin);
const viewer = (args: string[]) => kc.run(['--token=viewer-token', ...args]);

test.serial('kubectl logs, with --tail, --since, --limit-bytes and --timestamps', async (t) => {
  let r = await admin(['logs', 'p']);
  t.is(r.code, 0, r.stderr);
  t.is(r.stdout, 'line one\nline two\nline three\nline four\n');
  r = await admin(['logs', 'p', '--tail=1', '--since=1h', '--limit-bytes=6']);
  t.is(r.code, 0, r.stderr);
  t.is(r.stdout, 'line f');
  t.is(k.requests.at(-1)!.url, `/containerLogs/${NS}/p/c?sinceSeconds=3600&tailLines=1&limitBytes=6`);
  // kubectl checks the container itself; the server's own answer, through get --raw
  r = await admin(['get', '--raw', `/api/v1/namespaces/${NS}/pods/p/log?container=nope`]);
  t.is(r.code, 1);
  t.is(r.stderr, 'Error from server (BadRequest): container nope is not valid for pod p\n');
});

test.serial('kubectl logs -f streams until it is stopped', async (t) => {
  const child = spawn('kubectl', [`--server=${server}`, `--certificate-authority=${caCert}`, '--token=admin-token', 'logs', '-f', 'p']);
  let out = '';
  await new Promise<void>((resolve) => {
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      if (out.includes('follow 2\n')) resolve();
    });
    child.on('exit', () => resolve());
  });
  child.kill();
  t.true(out.startsWith('line one\nline two\nline three\nline four\nfollow 1\nfollow 2\n'), out);
});

test.serial('kubectl exec -- echo hi, and exec -i with stdin, over the WebSocket protocol', async (t) => {
  let r = await admin(['exec', 'p', '--', 'echo', 'hi']);
  t.is(r.code, 0, r.stderr);
  t.is(r.stdout, 'hi\n');
  const seen = k.requests.at(-1)!;
  t.regex(seen.url, new RegExp(`^/exec/${NS}/p/c\\?command=echo&command=hi&`));
  t.regex(String(seen.headers['sec-websocket-protocol']), /v5\.channel\.k8s\.io/);
  r = await admin(['exec', '-i', 'p', '--', 'cat'], 'from stdin\n');
  t.is(r.code, 0, r.stderr);
  t.is(r.stdout, 'from stdin\n');
});

/**
 * kubectl port-forward pod/p :<echo port> until it says where it listens, then bytes both ways
 * through it (twice, on two connections); `env` picks the tunnel. Returns what came back and the
 * kubelet's requests meanwhile (one: a refused tunnel would show as a second, SPDY, request).
 */
async function portForward(env: NodeJS.ProcessEnv, bin = 'kubectl', extra: string[] = []) {
  const before = k.requests.length;
  const child = spawn(bin, [...extra, `--server=${server}`, `--certificate-authority=${caCert}`, '--token=admin-token', 'port-forward', 'pod/p', `:${k.echoPort}`], { env: { ...process.env, ...env } });
  let out = '';
  let err = '';
  child.stderr.on('data', (c: Buffer) => (err += c));
  try {
    const local = await new Promise<number>((resolve, reject) => {
      child.stdout.on('data', (c: Buffer) => {
        out += c;
        const m = /Forwarding from 127\.0\.0\.1:(\d+) -> (\d+)/.exec(out);
        if (m) resolve(Number(m[1]));
      });
      child.on('exit', () => reject(new Error(`kubectl port-forward exited: ${out}${err}`)));
    });
    const echoed: string[] = [];
    for (const text of ['hello through the tunnel\n', 'and a second connection\n']) {
      const sock = connect(local, '127.0.0.1');
      await once(sock, 'connect');
      sock.write(text);
      let got = '';
      while (got.length < text.length) got += String((await once(sock, 'data'))[0]);
      echoed.push(got);
      sock.destroy();
    }
    return { echoed, requests: k.requests.slice(before) };
  } finally {
    child.kill();
  }
}

test.serial('kubectl port-forward carries bytes both ways: SPDY tunnelled in a WebSocket (the default)', async (t) => {
  const r = await portForward({});
  t.deepEqual(r.echoed, ['hello through the tunnel\n', 'and a second connection\n']);
  t.is(r.requests.length, 1);
  t.is(r.requests[0].url, `/portForward/${NS}/p`);
  t.is(String(r.requests[0].headers.upgrade), 'websocket');
  t.is(r.requests[0].headers['sec-websocket-protocol'], 'SPDY/3.1+portforward.k8s.io');
});

test.serial('kubectl port-forward carries bytes both ways: plain SPDY/3.1 upgrade (websockets off)', async (t) => {
  const r = await portForward({ KUBECTL_PORT_FORWARD_WEBSOCKETS: 'false' });
  t.deepEqual(r.echoed, ['hello through the tunnel\n', 'and a second connection\n']);
  t.is(r.requests.length, 1);
  t.is(r.requests[0].method, 'POST');
  t.is(String(r.requests[0].headers.upgrade), 'SPDY/3.1');
  t.is(r.requests[0].headers['x-stream-protocol-version'], 'portforward.k8s.io');
});

test.serial('kubectl get --raw through pod, service-less node and legacy proxy paths', async (t) => {
  let r = await admin(['get', '--raw', `/api/v1/namespaces/${NS}/pods/p:${k.backendPort}/proxy/hello?x=1`]);
  t.is(r.code, 0, r.stderr);
  t.is(r.stdout, 'backend GET /hello?x=1\n');
  t.is(k.backendRequests.at(-1)!.headers.authorization, undefined, 'the bearer token is not sent on');
  r = await admin(['get', '--raw', '/api/v1/nodes/n1/proxy/stats']);
  t.is(r.stdout, 'kubelet GET /stats\n');
  r = await admin(['get', '--raw', `/api/v1/proxy/namespaces/${NS}/pods/p:${k.backendPort}/old`]);
  t.is(r.stdout, 'backend GET /old\n');
});

test.serial('each is refused with 403 to a user who may read pods but not the subresource', async (t) => {
  t.is((await viewer(['get', 'pod', 'p', '-o', 'name'])).stdout, 'pod/p\n');
  const forbidden = (verb: string, sub: string) =>
    `Error from server (Forbidden): pods "p" is forbidden: User "viewer" cannot ${verb} resource "pods/${sub}" in API group "" in the namespace "${NS}"${RBAC_REASON}\n`;
  let r = await viewer(['logs', 'p']);
  t.is(r.code, 1);
  t.is(r.stderr, forbidden('get', 'log'));
  r = await viewer(['exec', 'p', '--', 'echo', 'hi']);
  t.is(r.code, 1);
  t.regex(r.stderr, /User "viewer" cannot (get|create) resource "pods\/exec"/);
  r = await viewer(['port-forward', 'pod/p', '18080:80']);
  t.is(r.code, 1);
  t.regex(r.stderr, /User "viewer" cannot (get|create) resource "pods\/portforward"/);
  r = await viewer(['get', '--raw', `/api/v1/namespaces/${NS}/pods/p/proxy/x`]);
  t.is(r.code, 1);
  t.regex(r.stderr, /Error from server \(Forbidden\)/);
  t.is(k.backendRequests.filter((q) => q.url === '/x').length, 0);
});

test.serial('get alone on pods/exec does not open a WebSocket exec: create is checked too, before the kubelet is asked', async (t) => {
  const before = k.requests.length;
  const r = await kc.run(['--token=getter-token', 'exec', 'p', '--', 'echo', 'hi']);
  t.is(r.code, 1);
  t.regex(r.stderr, /User "getter" cannot create resource "pods\/exec" in API group "" in the namespace "default"/);
  t.is(k.requests.length, before);
});

/**
 * kubectl 1.20 from Debian's kubernetes-client package, unpacked into a temp dir (the machine's
 * /usr/bin/kubectl is 1.32 and belongs to another package); undefined when the package cannot be fetched.
 */
function kubectl120(): string | undefined {
  try {
    const dir = mkdtempSync(join(tmpdir(), 'kubectl-120-'));
    execFileSync('apt-get', ['download', 'kubernetes-client'], { cwd: dir, stdio: 'ignore', timeout: 120_000 });
    const deb = readdirSync(dir).find((f) => f.endsWith('.deb'));
    if (!deb) return undefined;
    execFileSync('dpkg', ['-x', join(dir, deb), join(dir, 'root')], { stdio: 'ignore' });
    const bin = join(dir, 'root/usr/bin/kubectl');
    return existsSync(bin) ? bin : undefined;
  } catch {
    return undefined;
  }
}
const old = kubectl120();
const run120 = (token: string, args: string[], stdin?: string) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    const cache = mkdtempSync(join(tmpdir(), 'kubectl-120-cache-'));
    const child = spawn(old!, [`--server=${server}`, `--certificate-authority=${caCert}`, `--cache-dir=${cache}`, `--token=${token}`, ...args]);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c));
    child.stderr.on('data', (c: Buffer) => (stderr += c));
    child.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
    if (stdin !== undefined) child.stdin.end(stdin);
  });

const need120 = (t: ExecutionContext) => {
  // the package comes from Debian's lists (.ci/run refreshes them): its absence is a failure, not a skip
  if (!old) t.fail('kubectl 1.20 unavailable: `apt-get download kubernetes-client` failed (run apt-get update)');
  return Boolean(old);
};

test.serial('kubectl 1.20: port-forward carries bytes both ways over SPDY/3.1', async (t) => {
  if (!need120(t)) return;
  const r = await portForward({}, old!, [`--cache-dir=${mkdtempSync(join(tmpdir(), 'kubectl-120-cache-'))}`]);
  t.deepEqual(r.echoed, ['hello through the tunnel\n', 'and a second connection\n']);
  t.is(r.requests.length, 1);
  t.is(r.requests[0].method, 'POST');
  t.is(String(r.requests[0].headers.upgrade), 'SPDY/3.1');
  t.is(r.requests[0].headers['x-stream-protocol-version'], 'portforward.k8s.io');
});

test.serial('kubectl 1.20: exec -- echo hi, and exec -i with stdin, over SPDY/3.1 with the v4 stream protocol', async (t) => {
  if (!need120(t)) return;
  let r = await run120('admin-token', ['exec', 'p', '--', 'echo', 'hi']);
  t.is(r.code, 0, r.stderr);
  t.is(r.stdout, 'hi\n');
  const seen = k.requests.at(-1)!;
  t.is(seen.method, 'POST');
  t.regex(seen.url, new RegExp(`^/exec/${NS}/p/c\\?command=echo&command=hi&`));
  t.is(String(seen.headers.upgrade), 'SPDY/3.1');
  t.regex(String(seen.headers['x-stream-protocol-version']), /^v4\.channel\.k8s\.io/);
  r = await run120('admin-token', ['exec', '-i', 'p', '--', 'cat'], 'from stdin\nover two lines\n');
  t.is(r.code, 0, r.stderr);
  t.is(r.stdout, 'from stdin\nover two lines\n');
  t.regex(k.requests.at(-1)!.url, /[?&]stdin=(true|1)(&|$)/);
});

test.serial('kubectl 1.20: logs and get --raw through proxy; exec over SPDY (POST) refused as create', async (t) => {
  if (!need120(t)) return;
  let r = await run120('admin-token', ['logs', 'p', '--tail=2']);
  t.is(r.code, 0, r.stderr);
  t.is(r.stdout, 'line three\nline four\n');
  r = await run120('admin-token', ['get', '--raw', '/api/v1/nodes/n1/proxy/pods']);
  t.is(r.stdout, 'kubelet GET /pods\n');
  r = await run120('viewer-token', ['logs', 'p']);
  t.is(r.code, 1);
  t.regex(r.stderr, /User "viewer" cannot get resource "pods\/log"/);
  const before = k.requests.length;
  r = await run120('getter-token', ['exec', 'p', '--', 'echo', 'hi']);
  t.is(r.code, 1);
  t.regex(r.stderr, /User "getter" cannot create resource "pods\/exec" in API group "" in the namespace "default"/);
  t.is(k.requests.length, before);
});
