import test from 'ava';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { proxyConfigFrom } from '../../src/config/proxy.ts';
import { startProxy, type RunningProxy } from '../../src/proxy/start.ts';
import { abac, bearer, raw, startEcho, tempDir, tokenFile, type EchoServer } from './proxy-harness.ts';

// `portcullis proxy` in this process, in front of three real upstreams (two TCP, one unix socket):
// routing by path and host, ignore routes, the allow-list, identity headers, stripping, traversal
// refusals, resource-attribute checks taken from the path, query and headers, denials as Status.

const dir = tempDir('proxy-routing');
let a: EchoServer, b: EchoServer, c: EchoServer, proxy: RunningProxy, url: string;

test.before(async () => {
  a = await startEcho('A');
  b = await startEcho('B');
  c = await startEcho('C', join(dir, 'c.sock'));
  const policy = join(dir, 'policy.jsonl');
  writeFileSync(policy, [
    abac({ user: 'alice', nonResourcePath: '*' }),
    abac({ user: 'alice', namespace: 'team1', resource: 'pods', apiGroup: '*', readonly: true }),
    abac({ user: 'alice', namespace: 'team1', resource: 'services', apiGroup: '*' }),
    abac({ user: 'bob', nonResourcePath: '/a/*' }),
    abac({ user: 'carol', namespace: 'team1', resource: 'pods', apiGroup: '*' }),
  ].join('\n') + '\n');
  const config = proxyConfigFrom({
    identityHeaders: { user: 'X-Auth-User' },
    routes: [
      { name: 'probes', prefix: '/healthz', ignore: true, upstream: a.url },
      { name: 'b-host', prefix: '/', host: 'b.example', upstream: b.url },
      { name: 'a', prefix: '/a', upstream: `${a.url}/base` },
      { name: 'c', prefix: '/c', upstream: c.url },
      { name: 'pods', glob: '/ns/*/pods/**', upstream: a.url, checks: [
        { resource: { resource: 'pods', namespace: { pathSegment: 1 }, name: { query: 'name' } } },
        { nonResource: {} },
      ] },
      { name: 'metrics', prefix: '/metrics', upstream: a.url, identity: 'impersonate', checks: [
        { resource: { verb: 'get', resource: 'services', subresource: 'metrics', namespace: { header: 'X-Namespace' } } },
      ] },
    ],
  });
  proxy = await startProxy({
    config,
    insecureListenAddress: '127.0.0.1:0',
    authentication: { tokenAuthFile: tokenFile(dir, { alice: ['devs', 'ops'], bob: [], carol: [] }) },
    policy: { 'policy-file': [policy] },
    log: () => {},
  });
  url = proxy.insecureUrl!;
});

test.after.always(async () => {
  await proxy?.close();
  await Promise.all([a, b, c].map((s) => s?.close()));
});

test('an ignore route needs no credentials, and spoofed identity headers never reach the upstream', async (t) => {
  const r = await raw(url, 'GET', '/healthz', { 'x-auth-user': 'root', 'x-remote-user': 'root', 'x-remote-group': 'system:masters', 'x-remote-extra-scopes': 'all', 'impersonate-user': 'root', authorization: 'Bearer stolen' });
  t.is(r.status, 200);
  t.is(r.json.upstream, 'A');
  for (const h of ['x-auth-user', 'x-remote-user', 'x-remote-group', 'x-remote-extra-scopes', 'impersonate-user', 'authorization']) t.is(r.json.headers[h], undefined, h);
});

test('no credentials on a checked route: 401 as a Status', async (t) => {
  const r = await raw(url, 'GET', '/a/x');
  t.is(r.status, 401);
  t.like(r.json, { kind: 'Status', status: 'Failure', reason: 'Unauthorized', code: 401 });
});

test('the upstream receives the caller as identity headers (configured names), without the credential or spoofed headers', async (t) => {
  const r = await raw(url, 'POST', '/a/x?y=1', {
    ...bearer('alice'),
    'x-auth-user': 'root', 'x-remote-group': 'system:masters', 'x-remote-extra-foo': 'bar', 'impersonate-group': 'system:masters',
    connection: 'x-secret', 'x-secret': 'hop-by-hop', 'content-type': 'text/plain',
  }, 'hello body');
  t.is(r.status, 200);
  t.is(r.json.upstream, 'A');
  t.is(r.json.url, '/base/a/x?y=1');
  t.is(r.json.body, 'hello body');
  const h = r.json.headers;
  t.is(h['x-auth-user'], 'alice');
  t.deepEqual(h['x-remote-group'].split(', ').sort(), ['devs', 'ops', 'system:authenticated']);
  for (const k of ['authorization', 'x-remote-extra-foo', 'impersonate-group', 'x-secret']) t.is(h[k], undefined, k);
  t.is(h['x-forwarded-proto'], 'http');
  // the upstream's own hop-by-hop headers do not come back
  t.is(r.headers['x-drop-me'], undefined);
});

// WSGI, PHP and Rack upstreams read `X_Remote_User` as `X-Remote-User` (gunicorn even joins the two
// values): the spellings with `_` are the caller speaking for the proxy all the same
test('identity and forwarding headers spelled with underscores never reach the upstream; other underscore headers do', async (t) => {
  const spoofed = {
    x_auth_user: 'root', 'X-Auth_User': 'root', x_remote_user: 'root', 'x-remote_group': 'system:masters', x_remote_extra_scopes: 'all', 'x-remote-extra_scopes': 'all',
    impersonate_user: 'root', impersonate_group: 'system:masters', impersonate_extra_scopes: 'all', x_forwarded_for: '10.6.6.6', x_forwarded_host: 'evil.example', x_forwarded_proto: 'https',
  };
  for (const [path, creds] of [['/a/x', bearer('alice')], ['/healthz', {}]] as const) {
    const r = await raw(url, 'GET', path, { ...creds, ...spoofed, my_app_header: 'kept' });
    t.is(r.status, 200, path);
    const h = r.json.headers;
    for (const name of Object.keys(spoofed)) t.is(h[name.toLowerCase()], undefined, `${path}: ${name}`);
    t.is(h.my_app_header, 'kept', path);
    t.false(JSON.stringify(h).includes('system:masters'), path);
    t.false(JSON.stringify(h).includes('root'), path);
  }
});

test('X-Forwarded-Host, X-Forwarded-Proto and Forwarded are the proxy\'s to say: a caller\'s are dropped; X-Forwarded-For is appended to', async (t) => {
  const r = await raw(url, 'GET', '/a/x', {
    ...bearer('alice'),
    'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https', forwarded: 'for=10.0.0.1;proto=https;host=evil.example', 'x-forwarded-for': '10.9.9.9',
  });
  t.is(r.status, 200);
  const h = r.json.headers;
  t.is(h['x-forwarded-proto'], 'http', 'the caller came over plain HTTP, whatever it says');
  t.is(h['x-forwarded-host'], new URL(url).host, 'the Host the caller sent, and only that');
  t.is(h.forwarded, undefined);
  // the chain: what the caller said, then the address the proxy saw
  t.is(h['x-forwarded-for'], '10.9.9.9, 127.0.0.1');
});

test('routes by host, and by path to a unix-socket upstream', async (t) => {
  const byHost = await raw(url, 'GET', '/anything', { ...bearer('alice'), host: 'B.example:8443' });
  t.is(byHost.json.upstream, 'B');
  t.is(byHost.json.headers['x-forwarded-host'], 'B.example:8443');
  // the fully qualified form (a trailing dot) is the same host, so it meets the same route
  for (const host of ['b.example.', 'B.EXAMPLE.:8443']) t.is((await raw(url, 'GET', '/anything', { ...bearer('alice'), host })).json.upstream, 'B', host);
  const unix = await raw(url, 'GET', '/c/thing', bearer('alice'));
  t.is(unix.status, 200);
  t.is(unix.json.upstream, 'C');
  t.is(unix.json.url, '/c/thing');
});

test('anything no route names is 404 (the routes are an allow-list), before authentication', async (t) => {
  for (const p of ['/', '/ab', '/other/a']) {
    const r = await raw(url, 'GET', p, bearer('alice'));
    t.is(r.status, 404, p);
    t.is(r.json.reason, 'NotFound');
  }
  t.is((await raw(url, 'GET', '/nothing')).status, 404);
});

test('traversal and ambiguous paths are refused with 400 before matching', async (t) => {
  for (const p of ['/a/../healthz', '/healthz/../a/x', '/a//x', '/a/%2e%2e/x', '/a%2Fx', '/a/x%5c..', '/a/./x', '/a/%zz', 'http://evil/a/x', '*', '/a/..;/healthz', '/a/..;jsessionid=1/x', '/a/%2e%2e;x/x', '/a/.;/x', '/a/x#/y', '/healthz#/a/x', '/a/x?q=1#f']) {
    const r = await raw(url, 'GET', p, bearer('alice'));
    t.is(r.status, 400, p);
    t.is(r.json?.reason, 'BadRequest', p);
  }
  // a trailing slash is fine, and so are `;` and dots inside a segment that is not a dot segment
  t.is((await raw(url, 'GET', '/a/x/', bearer('alice'))).status, 200);
  for (const p of ['/a/x;y=1', '/a/...;', '/a/..x', '/a/x..;/y']) t.is((await raw(url, 'GET', p, bearer('alice'))).status, 200, p);
});

test('non-resource check by default: path + lower-cased method', async (t) => {
  t.is((await raw(url, 'GET', '/a/x', bearer('bob'))).status, 200);
  const denied = await raw(url, 'GET', '/c/x', bearer('bob'));
  t.is(denied.status, 403);
  t.like(denied.json, { kind: 'Status', reason: 'Forbidden', code: 403 });
  t.regex(denied.json.message, /User "bob" cannot get path "\/c\/x"/);
});

test('resource attributes from the path and the query; every check must pass', async (t) => {
  const ok = await raw(url, 'GET', '/ns/team1/pods/logs?name=web', bearer('alice'));
  t.is(ok.status, 200);
  t.is(ok.json.upstream, 'A');
  // alice's pods rule is read-only: POST → create is refused
  const create = await raw(url, 'POST', '/ns/team1/pods/x?name=web', bearer('alice'));
  t.is(create.status, 403);
  t.regex(create.json.message, /cannot create resource "pods" in API group "" in the namespace "team1"/);
  t.is((await raw(url, 'GET', '/ns/team2/pods/x?name=web', bearer('alice'))).status, 403);
  // carol may get the pods but has no non-resource rule: the second check denies
  const carol = await raw(url, 'GET', '/ns/team1/pods/x?name=web', bearer('carol'));
  t.is(carol.status, 403);
  t.regex(carol.json.message, /cannot get path/);
  // the value the check needs is missing, or given twice
  t.is((await raw(url, 'GET', '/ns/team1/pods/x', bearer('alice'))).status, 400);
  t.is((await raw(url, 'GET', '/ns/team1/pods/x?name=a&name=b', bearer('alice'))).status, 400);
});

test('resource attributes from a header; identity as impersonation headers', async (t) => {
  const ok = await raw(url, 'GET', '/metrics', { ...bearer('alice'), 'x-namespace': 'team1', 'impersonate-user': 'root' });
  t.is(ok.status, 200);
  t.is(ok.json.headers['impersonate-user'], 'alice');
  t.is(ok.json.headers['x-auth-user'], undefined);
  t.is((await raw(url, 'GET', '/metrics', { ...bearer('alice'), 'x-namespace': 'team2' })).status, 403);
  t.is((await raw(url, 'GET', '/metrics', bearer('alice'))).status, 400);
});

test('denials are plain text for clients that do not ask for JSON', async (t) => {
  const r = await raw(url, 'GET', '/c/x', { ...bearer('bob'), accept: 'text/html,application/xhtml+xml' });
  t.is(r.status, 403);
  t.regex(String(r.headers['content-type']), /^text\/plain/);
  t.regex(r.text, /^forbidden: User "bob" cannot get path/);
});

test('an upstream that is down: 502 Status, naming the route only', async (t) => {
  const down = await startProxy({
    config: proxyConfigFrom({ routes: [{ name: 'gone', prefix: '/', ignore: true, upstream: 'http://127.0.0.1:1' }] }),
    insecureListenAddress: '127.0.0.1:0',
    policy: {},
    log: () => {},
  });
  try {
    const r = await raw(down.insecureUrl!, 'GET', '/x');
    t.is(r.status, 502);
    t.like(r.json, { kind: 'Status', code: 502 });
    t.notRegex(r.text, /127\.0\.0\.1/);
  } finally {
    await down.close();
  }
});
