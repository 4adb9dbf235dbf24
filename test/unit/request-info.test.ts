import test from 'ava';
import fc from 'fast-check';
import v8 from 'node:v8';
import vm from 'node:vm';
import { pathSegments, resolveRequestInfo, RequestInfoError } from '../../src/request/info.ts';

// The vectors of authn-authz.md §1.2 (1.5+ behaviour of ?watch=).

type V = [method: string, url: string, verb: string, ns: string, resource: string, sub: string, name: string, group?: string, version?: string];
const vectors: V[] = [
  ['GET', '/api/v1/namespaces', 'list', '', 'namespaces', '', ''],
  ['GET', '/api/v1/namespaces/other', 'get', 'other', 'namespaces', '', 'other'],
  ['GET', '/api/v1/namespaces/other/pods', 'list', 'other', 'pods', '', ''],
  ['GET', '/api/v1/namespaces/other/pods/foo', 'get', 'other', 'pods', '', 'foo'],
  ['HEAD', '/api/v1/namespaces/other/pods/foo', 'get', 'other', 'pods', '', 'foo'],
  ['GET', '/api/v1/pods', 'list', '', 'pods', '', ''],
  ['HEAD', '/api/v1/pods', 'list', '', 'pods', '', ''],
  ['GET', '/api/v1/proxy/namespaces/other/pods/foo', 'proxy', 'other', 'pods', '', 'foo'],
  ['GET', '/api/v1/proxy/namespaces/other/pods/foo/subpath/not/a/subresource', 'proxy', 'other', 'pods', '', 'foo'],
  ['GET', '/api/v1/redirect/namespaces/other/pods/foo', 'redirect', 'other', 'pods', '', 'foo'],
  ['GET', '/api/v1/watch/pods', 'watch', '', 'pods', '', ''],
  ['GET', '/api/v1/pods?watch=true', 'watch', '', 'pods', '', ''],
  ['GET', '/api/v1/pods?watch=false', 'list', '', 'pods', '', ''],
  ['GET', '/api/v1/watch/namespaces/other/pods', 'watch', 'other', 'pods', '', ''],
  ['GET', '/api/v1/namespaces/other/pods?watch=1', 'watch', 'other', 'pods', '', ''],
  ['GET', '/api/v1/namespaces/other/pods?watch=0', 'list', 'other', 'pods', '', ''],
  ['GET', '/api/v1/namespaces/other/pods/foo/status', 'get', 'other', 'pods', 'status', 'foo'],
  ['GET', '/api/v1/namespaces/other/pods/foo/proxy/subpath', 'get', 'other', 'pods', 'proxy', 'foo'],
  ['PUT', '/api/v1/namespaces/other/finalize', 'update', 'other', 'namespaces', 'finalize', 'other'],
  ['PUT', '/api/v1/namespaces/other/status', 'update', 'other', 'namespaces', 'status', 'other'],
  ['PATCH', '/api/v1/namespaces/other/pods/foo', 'patch', 'other', 'pods', '', 'foo'],
  ['DELETE', '/api/v1/namespaces/other/pods/foo', 'delete', 'other', 'pods', '', 'foo'],
  ['POST', '/api/v1/namespaces/other/pods', 'create', 'other', 'pods', '', ''],
  ['DELETE', '/api/v1/nodes', 'deletecollection', '', 'nodes', '', ''],
  ['DELETE', '/api/v1/namespaces', 'deletecollection', '', 'namespaces', '', ''],
  ['DELETE', '/api/v1/namespaces/other/pods', 'deletecollection', 'other', 'pods', '', ''],
  ['DELETE', '/apis/extensions/v1/namespaces/other/pods', 'deletecollection', 'other', 'pods', '', '', 'extensions', 'v1'],
  ['POST', '/apis/extensions/v1beta3/namespaces/other/pods', 'create', 'other', 'pods', '', '', 'extensions', 'v1beta3'],
  ['POST', '/api/v1/nodes/mynode', 'create', '', 'nodes', '', 'mynode'],
  ['PUT', '/api/v1/namespaces/myns/pods/mypod', 'update', 'myns', 'pods', '', 'mypod'],
  ['GET', '/apis/extensions/v1beta1/namespaces/myns/jobs', 'list', 'myns', 'jobs', '', '', 'extensions', 'v1beta1'],
  ['GET', '/api/v1/namespaces/ns/pods/p/log', 'get', 'ns', 'pods', 'log', 'p'],
  ['POST', '/api/v1/namespaces/ns/pods/p/exec', 'create', 'ns', 'pods', 'exec', 'p'],
  ['POST', '/api/v1/namespaces/ns/pods/p/binding', 'create', 'ns', 'pods', 'binding', 'p'],
  ['POST', '/api/v1/namespaces/ns/bindings', 'create', 'ns', 'bindings', '', ''],
  ['PUT', '/apis/extensions/v1beta1/namespaces/ns/deployments/d/scale', 'update', 'ns', 'deployments', 'scale', 'd', 'extensions', 'v1beta1'],
  ['POST', '/apis/extensions/v1beta1/namespaces/ns/deployments/d/rollback', 'create', 'ns', 'deployments', 'rollback', 'd', 'extensions', 'v1beta1'],
  ['GET', '/api/v1/watch/namespaces/ns/pods/p', 'watch', 'ns', 'pods', '', 'p'],
  ['GET', '/api/v1/proxy/nodes/n1/stats', 'proxy', '', 'nodes', '', 'n1'],
  ['OPTIONS', '/api/v1/pods', '', '', 'pods', '', ''],
  ['GET', '/api/version/resource', 'list', '', 'resource', '', '', '', 'version'],
  ['GET', '/apis/batch/v1/job/foo/scale', 'get', '', 'job', 'scale', 'foo', 'batch', 'v1'],
];

for (const [method, url, verb, ns, resource, sub, name, group = '', version = 'v1'] of vectors) {
  test(`${method} ${url}`, (t) => {
    const u = new URL(url, 'http://x');
    const a = resolveRequestInfo(method, u.pathname, u.searchParams);
    t.true(a.isResourceRequest);
    t.deepEqual(
      { verb: a.verb, ns: a.namespace, resource: a.resource, sub: a.subresource, name: a.name, group: a.apiGroup, version: a.apiVersion },
      { verb, ns, resource, sub, name, group, version },
    );
  });
}

const nonResource: Array<[string, string]> = [
  ['POST', '/'],
  ['GET', '/api/'],
  ['GET', '/apis/extensions/'],
  ['GET', ''],
  ['GET', '/api'],
  ['GET', '/api/version'],
  ['GET', '/api/version/'],
  ['GET', '/apis/group/version/'],
  ['GET', '/apis/extensions/v1beta1'],
  ['GET', '/apis/extensions/v1beta1/'],
  ['GET', '/apis/version/resource'],
  ['GET', '/badprefix/version/resource'],
  ['GET', '/not-api/version/resource'],
  ['GET', '/healthz'],
  ['GET', '/version'],
];
for (const [method, path] of nonResource) {
  test(`non-resource ${method} ${JSON.stringify(path)}`, (t) => {
    const a = resolveRequestInfo(method, path, new URLSearchParams());
    t.false(a.isResourceRequest);
    t.is(a.verb, method.toLowerCase());
    t.is(a.path, path);
  });
}

test('a special verb without a following segment is an error', (t) => {
  t.throws(() => resolveRequestInfo('GET', '/api/v1/watch', new URLSearchParams()), { instanceOf: RequestInfoError });
});

test('segments are percent-decoded once: an encoded name is the name', (t) => {
  const a = resolveRequestInfo('GET', '/api/v1/namespaces/%6Fther/pods/fo%6F', new URLSearchParams());
  t.deepEqual([a.namespace, a.resource, a.name], ['other', 'pods', 'foo']);
  t.is(a.path, '/api/v1/namespaces/%6Fther/pods/fo%6F');
});

// a resource path that another layer could read differently names nothing (issue #13)
for (const path of ['/api/v1/namespaces//pods', '/api/v1/namespaces/a/./pods', '/api/v1/namespaces/a/pods/..', '/api/v1/namespaces/a/pods/%2E%2E', '/api/v1/namespaces/a%2Fb/pods', '/api/v1/pods/%zz', '/apis/batch/v1/namespaces/a/jobs//x']) {
  test(`not a canonical resource path: ${path}`, (t) => {
    t.throws(() => resolveRequestInfo('GET', path, new URLSearchParams()), { instanceOf: RequestInfoError });
  });
}

// The segments are found by index, not by split: for any path (slashes at either end and doubled,
// empty and dot segments, escapes good and bad) the same segments as the plain reading — trim the
// slashes, split on `/`, decode each segment once (undefined when it does not decode).
test('pathSegments reads every path as trim + split + decode does', (t) => {
  const plainSegments = (path: string): (string | undefined)[] =>
    path.replace(/^\/+|\/+$/g, '').split('/').map((s) => {
      try { return decodeURIComponent(s); } catch { return undefined; }
    });
  const segment = fc.oneof(fc.constantFrom('api', 'apis', 'v1', 'pods', '', '.', '..', '%2E', '%2f', '%zz', '%6F', 'a%20b', '%'), fc.string({ maxLength: 6 }));
  fc.assert(fc.property(fc.array(segment, { maxLength: 9 }), fc.constantFrom('', '/', '//'), fc.constantFrom('', '/', '//'), (segs, lead, trail) => {
    const path = lead + segs.join('/') + trail;
    t.deepEqual(pathSegments(path), plainSegments(path), JSON.stringify(path));
  }), { numRuns: 5000 });
});

// The attributes are kept (a stored object's namespace, a cache entry): they must not keep the URL
// they were read from alive. V8 makes a piece of 13+ characters a view of its whole string.
test('namespace and name do not keep the URL they came from alive (gc-measured)', (t) => {
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc') as () => void;
  const kept: string[] = [];
  gc();
  const before = process.memoryUsage().heapUsed;
  for (let i = 0; i < 2000; i++) {
    const url = `/api/v1/namespaces/a-long-namespace-name-${i}/configmaps/a-long-configmap-name-${i}?q=${'q'.repeat(50_000)}`;
    const a = resolveRequestInfo('POST', url.slice(0, url.indexOf('?')), new URLSearchParams());
    kept.push(a.namespace, a.name, a.resource);
  }
  gc();
  const grown = process.memoryUsage().heapUsed - before;
  t.is(kept.length, 6000);
  t.true(grown < 8 * 1024 * 1024, `${(grown / 1024 / 1024).toFixed(1)} MiB kept for 2,000 requests' attributes`);
});
