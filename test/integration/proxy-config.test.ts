import test from 'ava';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ProxyConfigError, proxyConfigFrom, readProxyConfig, singleUpstreamConfig } from '../../src/config/proxy.ts';
import { tempDir } from './proxy-harness.ts';

// The routes file is checked at start: a mistake fails the start naming the route and the field.

const up = 'http://127.0.0.1:8080';

test('bad routes fail with the route and field named', (t) => {
  const bad: Array<[unknown, RegExp]> = [
    [{ routes: [] }, /routes must be a non-empty list/],
    [{ routes: [{ name: 'r', prefix: '/a', glob: '/b', upstream: up }] }, /route "r": exactly one of prefix, glob/],
    [{ routes: [{ name: 'r', prefix: '/a/../b', upstream: up }] }, /no empty, \. or \.\. segments/],
    [{ routes: [{ name: 'r', prefix: 'a', upstream: up }] }, /must start with \//],
    [{ routes: [{ name: 'r', prefix: '/a', upstream: 'ftp://x' }] }, /url must be http/],
    [{ routes: [{ name: 'r', prefix: '/a', upstream: up, typo: 1 }] }, /unknown field "typo"/],
    [{ routes: [{ name: 'r', prefix: '/a', upstream: up, ignore: true, checks: [{ nonResource: {} }] }] }, /an ignore route has no checks/],
    [{ routes: [{ name: 'r', prefix: '/a', upstream: up, checks: [{ resource: { verb: 'get' } }] }] }, /resource is required/],
    [{ routes: [{ name: 'r', prefix: '/a', upstream: up, checks: [{ resource: { resource: { query: 'a', header: 'b' } } }] }] }, /exactly one of query, header, pathSegment/],
    [{ routes: [{ name: 'r', prefix: '/a', upstream: up, identity: 'magic' }] }, /identity must be one of/],
    [{ routes: [{ name: 'r', prefix: '/a', upstream: up }, { name: 'r', prefix: '/b', upstream: up }] }, /given twice/],
    [{ routes: [{ name: 'r', prefix: '/a', upstream: { url: up, clientCertFile: 'c.pem' } }] }, /go together/],
  ];
  for (const [doc, re] of bad) t.throws(() => proxyConfigFrom(doc), { instanceOf: ProxyConfigError, message: re }, JSON.stringify(doc));
});

test('defaults: a non-resource check, identity headers, the X-Remote-* names', (t) => {
  const c = proxyConfigFrom({ routes: [{ prefix: '/a/', upstream: up }] });
  t.deepEqual(c.routes[0], { name: 'route-0', prefix: '/a', glob: undefined, host: undefined, ignore: false, upstream: { url: up, caFile: undefined, clientCertFile: undefined, clientKeyFile: undefined }, checks: [{ kind: 'nonResource' }], identity: 'headers' });
  t.deepEqual(c.identityHeaders, { user: 'X-Remote-User', group: 'X-Remote-Group', extraPrefix: 'X-Remote-Extra-' });
  // a route's host as requests are compared with it: lower case, no trailing dot
  t.is(proxyConfigFrom({ routes: [{ prefix: '/', host: 'Grafana.Example.', upstream: up }] }).routes[0].host, 'grafana.example');
});

test('the single-upstream flags: ignore paths first, then the allow-list or everything', (t) => {
  const c = singleUpstreamConfig({ upstream: { url: up }, allowPaths: ['/metrics'], ignorePaths: ['/healthz'], identity: 'headers' });
  t.deepEqual(c.routes.map((r) => [r.glob ?? r.prefix, r.ignore]), [['/healthz', true], ['/metrics', false]]);
  const all = singleUpstreamConfig({ upstream: { url: up }, allowPaths: [], ignorePaths: [], identity: 'none' });
  t.deepEqual(all.routes.map((r) => [r.prefix, r.identity]), [['/', 'none']]);
});

test('a YAML file with an error names the file', (t) => {
  const file = join(tempDir('proxy-config'), 'routes.yaml');
  writeFileSync(file, 'routes:\n  - prefix: /a\n    upstream: http://x\n    checks: [{nonResource: {verb: 1}}]\n');
  t.throws(() => readProxyConfig(file), { message: /routes\.yaml: .*verb must be a non-empty string/ });
});
