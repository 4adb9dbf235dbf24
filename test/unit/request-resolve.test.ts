import test from 'ava';
import { Catalogue } from '../../src/api/catalogue.ts';
import { resources } from '../../src/kinds/catalogue.ts';
import { resolveRequest } from '../../src/request/resolve.ts';

// The one resolution step (issue #13): the attributes the authorizer reads and the target the handler
// acts on come out together, frozen; what the attributes cannot name exactly is a refusal.

const cat = new Catalogue(resources, () => true);
const q = new URLSearchParams();

test('one frozen value: attributes and target agree', (t) => {
  const r = resolveRequest(cat, 'DELETE', '/api/v1/namespaces/a/pods/p', q);
  t.true(Object.isFrozen(r) && Object.isFrozen(r.attrs) && Object.isFrozen(r.target));
  t.is(r.refusal, undefined);
  t.deepEqual([r.attrs.verb, r.attrs.namespace, r.attrs.resource, r.attrs.name], ['delete', 'a', 'pods', 'p']);
  t.deepEqual([r.target!.verb, r.target!.namespace, r.target!.def.plural, r.target!.name], ['delete', 'a', 'pods', 'p']);
});

test('a namespace object is addressed by its own path: attribute namespace = name, stored cluster-wide', (t) => {
  for (const [method, path, sub] of [['GET', '/api/v1/namespaces/x', ''], ['PUT', '/api/v1/namespaces/x/finalize', 'finalize'], ['PUT', '/api/v1/namespaces/x/status', 'status'], ['GET', '/api/v1/watch/namespaces/x', '']]) {
    const r = resolveRequest(cat, method, path, q);
    t.is(r.refusal, undefined, path);
    t.deepEqual([r.attrs.namespace, r.attrs.name, r.attrs.subresource], ['x', 'x', sub], path);
    t.deepEqual([r.target!.namespace, r.target!.name, r.target!.subresource], ['', 'x', sub], path);
  }
});

const refused: Array<[string, string, number]> = [
  // the attack, every verb and form
  ['GET', '/api/v1/namespaces/own/namespaces/other', 404],
  ['GET', '/api/v1/namespaces/own/namespaces', 404],
  ['POST', '/api/v1/namespaces/own/namespaces', 404],
  ['PATCH', '/api/v1/namespaces/own/namespaces/other', 404],
  ['PUT', '/api/v1/namespaces/own/namespaces/other/finalize', 404],
  ['DELETE', '/api/v1/namespaces/own/namespaces/other', 404],
  ['DELETE', '/api/v1/namespaces/own/namespaces', 404],
  ['GET', '/api/v1/watch/namespaces/own/namespaces/other', 404],
  ['GET', '/api/v1/namespaces/own/namespaces?watch=true', 404],
  // other cluster-scoped kinds under a namespace
  ['GET', '/api/v1/namespaces/own/nodes/n1', 404],
  ['POST', '/apis/rbac.authorization.platform.io/v1alpha1/namespaces/own/clusterrolebindings', 404],
  ['POST', '/apis/authorization.platform.io/v1beta1/namespaces/own/subjectaccessreviews', 404],
  // namespaced kinds without a namespace: a collection to read, no items, no writes
  ['GET', '/api/v1/pods/p', 404],
  ['POST', '/api/v1/pods', 405],
  ['DELETE', '/api/v1/pods', 405],
  ['POST', '/api/v1/bindings', 405],
  ['POST', '/apis/authorization.platform.io/v1beta1/localsubjectaccessreviews', 405],
  // parts nothing serves, proxies, watches that write
  ['GET', '/api/v1/namespaces/a/pods/p/status/more', 404],
  ['GET', '/api/v1/namespaces/a/pods/p/log/more', 404],
  ['GET', '/api/v1/proxy/namespaces/a/configmaps/p', 404],
  ['GET', '/api/v1/proxy/namespaces/a/pods', 404],
  ['GET', '/api/v1/redirect/nodes/n1', 404],
  ['GET', '/api/v1/watch/namespaces/a/pods/p/status', 404],
  ['POST', '/api/v1/watch/namespaces/a/pods', 405],
  ['DELETE', '/api/v1/watch/namespaces/a/pods/p', 405],
  // malformed
  ['GET', '/api/v1/namespaces/a/pods/%2E%2E', 400],
  ['GET', '/api/v1/watch', 400],
];
for (const [method, path, code] of refused) {
  test(`refused ${code}: ${method} ${path}`, (t) => {
    // not through URL: it would remove the dot segments this test sends
    const [pathname, query = ''] = path.split('?');
    const r = resolveRequest(cat, method, pathname, new URLSearchParams(query));
    t.is(r.target, undefined);
    t.is(r.refusal?.code, code);
  });
}

test('a malformed path is authorized as the non-resource path it is', (t) => {
  const r = resolveRequest(cat, 'DELETE', '/api/v1/namespaces/a//pods', q);
  t.false(r.attrs.isResourceRequest);
  t.deepEqual([r.attrs.verb, r.attrs.path], ['delete', '/api/v1/namespaces/a//pods']);
});

test('a group-version the server does not serve routes nowhere', (t) => {
  const off = new Catalogue(resources, (gv) => gv.enabledByDefault);
  t.is(resolveRequest(off, 'GET', '/apis/rbac.authorization.platform.io/v1alpha1/clusterroles', q).refusal?.code, 404);
  t.truthy(resolveRequest(cat, 'GET', '/apis/rbac.authorization.platform.io/v1alpha1/clusterroles', q).target);
});
