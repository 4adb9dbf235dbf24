// Connection upgrades pass the same front door as every request: on a raw socket, a refusal is an
// HTTP/1.1 response carrying a Status (401, 403), and with no upgrade handler an admitted request
// gets what the same request gets without Upgrade headers (a 404 Status for a path that routes
// nowhere, the object for a served path).
import test from 'ava';
import http from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type PortcullisServer } from '../../src/server/server.ts';

let server: PortcullisServer;
let upgradeOnly: http.Server;
let port = 0;

test.before(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'portcullis-upgrade-'));
  const tokens = join(dir, 'tokens.csv');
  writeFileSync(tokens, 'alicetoken,alice,1001,readers\nbobtoken,bob,1002\n');
  const policy = join(dir, 'policy.jsonl');
  const line = (spec: object) => JSON.stringify({ apiVersion: 'abac.authorization.platform.io/v1beta1', kind: 'Policy', spec });
  writeFileSync(policy, line({ group: 'readers', namespace: '*', resource: '*', apiGroup: '*', readonly: true }));
  server = await createServer(
    { insecurePort: 0, insecureBindAddress: '127.0.0.1', anonymousAuth: false, tokenAuthFile: tokens, authorizationMode: ['ABAC'], authorizationPolicyFile: policy },
    { log: () => {} },
  );
  // a listener whose upgrades go to the server's upgrade entry (plain requests must not reach it)
  upgradeOnly = http.createServer((_req, res) => res.writeHead(599).end());
  upgradeOnly.on('upgrade', server.upgrade);
  await new Promise<void>((resolve) => upgradeOnly.listen(0, '127.0.0.1', resolve));
  port = (upgradeOnly.address() as AddressInfo).port;
});
test.after.always(async () => {
  upgradeOnly?.closeAllConnections();
  upgradeOnly?.close();
  await server?.close();
});

interface RawResponse {
  statusLine: string;
  headers: Map<string, string>;
  body: string;
}

/** One request with upgrade headers on a raw socket; everything the server writes until it closes. */
async function upgradeRequest(path: string, lines: string[]): Promise<RawResponse> {
  const socket = connect(port, '127.0.0.1');
  const chunks: Buffer[] = [];
  socket.on('data', (c: Buffer) => chunks.push(c));
  socket.write([`GET ${path} HTTP/1.1`, 'Host: x', 'Connection: Upgrade', 'Upgrade: SPDY/3.1', ...lines, '', ''].join('\r\n'));
  await new Promise<void>((resolve, reject) => {
    socket.on('close', () => resolve());
    socket.on('error', reject);
  });
  const text = Buffer.concat(chunks).toString('utf8');
  const [head, ...rest] = text.split('\r\n\r\n');
  const [statusLine, ...headerLines] = head.split('\r\n');
  const headers = new Map(headerLines.map((h) => [h.slice(0, h.indexOf(':')).toLowerCase(), h.slice(h.indexOf(':') + 1).trim()]));
  let body = rest.join('\r\n\r\n');
  if (headers.get('transfer-encoding') === 'chunked') body = dechunk(body);
  return { statusLine, headers, body };
}

function dechunk(s: string): string {
  let out = '';
  let i = 0;
  for (;;) {
    const eol = s.indexOf('\r\n', i);
    const size = parseInt(s.slice(i, eol), 16);
    if (!size) return out;
    out += s.slice(eol + 2, eol + 2 + size);
    i = eol + 2 + size + 2;
  }
}

/** The same request without Upgrade headers, on the server's own listener. */
async function plain(path: string, token: string): Promise<{ status: number; body: string }> {
  const res = await fetch(`${server.insecureUrl}${path}`, { headers: { Authorization: `Bearer ${token}` } });
  return { status: res.status, body: await res.text() };
}

test('no credential: 401 Status on the raw socket, then the connection closes', async (t) => {
  const r = await upgradeRequest('/api/v1/namespaces/default/pods/p/exec', []);
  t.is(r.statusLine, 'HTTP/1.1 401 Unauthorized');
  t.is(r.headers.get('content-type'), 'application/json');
  t.is(r.headers.get('connection'), 'close');
  t.like(JSON.parse(r.body), { kind: 'Status', status: 'Failure', reason: 'Unauthorized', code: 401 });
});

test('a bad token is a 401 too (not anonymous, not passed on)', async (t) => {
  const r = await upgradeRequest('/api/v1/namespaces', ['Authorization: Bearer nope']);
  t.is(r.statusLine, 'HTTP/1.1 401 Unauthorized');
});

test('authenticated but not allowed: 403 Status naming the request', async (t) => {
  const r = await upgradeRequest('/api/v1/namespaces/default/pods/p/exec', ['Authorization: Bearer bobtoken']);
  t.is(r.statusLine, 'HTTP/1.1 403 Forbidden');
  const status = JSON.parse(r.body);
  t.like(status, { kind: 'Status', reason: 'Forbidden', code: 403 });
  t.regex(status.message, /User "bob" cannot get resource "pods\/exec" in API group "" in the namespace "default"/);
});

test('impersonation is checked on upgrades as on every request', async (t) => {
  const r = await upgradeRequest('/api/v1/namespaces', ['Authorization: Bearer alicetoken', 'Impersonate-User: bob']);
  t.is(r.statusLine, 'HTTP/1.1 403 Forbidden');
  t.regex(JSON.parse(r.body).message, /cannot impersonate resource "users"/);
});

test('admitted, no upgrade handler: the Status the path gets without Upgrade headers', async (t) => {
  const path = '/api/v1/namespaces/default/pods/p/nothing';
  const r = await upgradeRequest(path, ['Authorization: Bearer alicetoken']);
  const p = await plain(path, 'alicetoken');
  t.is(p.status, 404);
  t.is(r.statusLine, 'HTTP/1.1 404 Not Found');
  t.deepEqual(JSON.parse(r.body), JSON.parse(p.body));
});

test('admitted, no upgrade handler, a served path: answered as the plain request', async (t) => {
  const r = await upgradeRequest('/api/v1/namespaces/default', ['Authorization: Bearer alicetoken']);
  t.is(r.statusLine, 'HTTP/1.1 200 OK');
  t.is(r.headers.get('connection'), 'close');
  t.like(JSON.parse(r.body), { kind: 'Namespace', metadata: { name: 'default' } });
});
