// Typed fields through the real server: out-of-range integers, fractions and wrongly typed values
// are 422 Invalid naming the field, on create, update, patch, /status and /scale, and nothing is
// stored. (The unit side is test/unit/validation-types.test.ts.)
import test from 'ava';
import { startServer, type TestServer } from '../helpers/server.ts';
import { kindSchemas } from '../../src/kinds/index.ts';
import { INT32_MESSAGE, INT64_MESSAGE, type Scalar, type Shape } from '../../src/api/validation/schema.ts';

let srv: TestServer;
test.before(async () => {
  srv = await startServer();
});
test.after.always(() => srv?.close());

const JSON_TYPE = { 'content-type': 'application/json' };
// each test has its own namespace (tests of a file run concurrently), so "nothing stored" is exact
const collections = (ns: string) => ({
  DEPLOYMENTS: `/apis/extensions/v1beta1/namespaces/${ns}/deployments`,
  RCS: `/api/v1/namespaces/${ns}/replicationcontrollers`,
  PODS: `/api/v1/namespaces/${ns}/pods`,
  SERVICES: `/api/v1/namespaces/${ns}/services`,
});

async function namespace(t: import('ava').ExecutionContext, name: string): Promise<ReturnType<typeof collections>> {
  const r = await srv.req('POST', '/api/v1/namespaces', { metadata: { name } });
  t.is(r.status, 201, r.text);
  return collections(name);
}

const podSpec = { containers: [{ name: 'c', image: 'nginx:1.11' }] };
const template = { metadata: { labels: { app: 'web' } }, spec: podSpec };

interface Cause { reason: string; field: string; message: string }

function assertInvalid(t: import('ava').ExecutionContext, r: { status: number; json: { kind?: string; reason?: string; code?: number; details?: { causes?: Cause[] } } }, fieldPath: string, message?: string): void {
  t.is(r.status, 422, JSON.stringify(r.json));
  t.is(r.json.kind, 'Status');
  t.is(r.json.reason, 'Invalid');
  t.is(r.json.code, 422);
  const cause = r.json.details?.causes?.find((c) => c.field === fieldPath);
  t.truthy(cause, `a cause at ${fieldPath}: ${JSON.stringify(r.json.details?.causes)}`);
  t.is(cause?.reason, 'FieldValueInvalid');
  if (message) t.true(cause?.message.endsWith(message), cause?.message);
}

async function nothingStored(t: import('ava').ExecutionContext, collection: string): Promise<void> {
  const list = await srv.req('GET', collection);
  t.is(list.status, 200);
  t.deepEqual(list.json.items, [], `${collection} holds nothing`);
}

test('the issue vectors: int32 overflow, a number beyond 2^53 and a non-string generateName', async (t) => {
  const { DEPLOYMENTS, RCS, PODS } = await namespace(t, 'vectors');
  const over = await srv.req('POST', DEPLOYMENTS, { metadata: { name: 'over' }, spec: { replicas: 2147483648, template } });
  assertInvalid(t, over, 'spec.replicas', INT32_MESSAGE);
  t.is(over.json.message, `Deployment.extensions "over" is invalid: spec.replicas: Invalid value: 2147483648: ${INT32_MESSAGE}`);
  // sent as text: JSON.stringify could not write 9007199254740993
  const raw = `{"metadata":{"name":"big"},"spec":{"replicas":9007199254740993,"template":${JSON.stringify(template)}}}`;
  assertInvalid(t, await srv.req('POST', DEPLOYMENTS, raw, JSON_TYPE), 'spec.replicas', INT32_MESSAGE);
  const rc = `{"metadata":{"name":"big"},"spec":{"replicas":9007199254740993,"selector":{"app":"web"},"template":${JSON.stringify(template)}}}`;
  assertInvalid(t, await srv.req('POST', RCS, rc, JSON_TYPE), 'spec.replicas', INT32_MESSAGE);
  // an int64 field: beyond 2^53 the parsed value is not the one sent, so it is refused
  const grace = `{"metadata":{"name":"grace"},"spec":{"terminationGracePeriodSeconds":9007199254740993,"containers":[{"name":"c","image":"nginx"}]}}`;
  assertInvalid(t, await srv.req('POST', PODS, grace, JSON_TYPE), 'spec.terminationGracePeriodSeconds', INT64_MESSAGE);
  for (const generateName of [5, true, { a: 1 }, ['x-']]) {
    const r = await srv.req('POST', PODS, { metadata: { generateName }, spec: podSpec });
    assertInvalid(t, r, 'metadata.generateName', 'must be a string');
    t.is(r.json.details.causes.length, 1, JSON.stringify(r.json.details.causes));
  }
  await nothingStored(t, DEPLOYMENTS);
  await nothingStored(t, RCS);
  await nothingStored(t, PODS);
  // the largest values of each width are accepted as sent
  const max = await srv.req('POST', PODS, `{"metadata":{"name":"max"},"spec":{"terminationGracePeriodSeconds":9007199254740991,"activeDeadlineSeconds":9007199254740991,"containers":[{"name":"c","image":"nginx","ports":[{"containerPort":65535}]}]}}`, JSON_TYPE);
  t.is(max.status, 201, max.text);
  t.is(max.json.spec.terminationGracePeriodSeconds, 9007199254740991);
  const top = await srv.req('POST', DEPLOYMENTS, { metadata: { name: 'top' }, spec: { replicas: 2147483647, template } });
  t.is(top.status, 201, top.text);
  t.is(top.json.spec.replicas, 2147483647);
  await srv.req('DELETE', `${PODS}/max`);
  await srv.req('DELETE', `${DEPLOYMENTS}/top`);
});

test('fractions, strings and booleans in integer fields; numbers in string fields', async (t) => {
  const { DEPLOYMENTS, RCS, PODS, SERVICES } = await namespace(t, 'fractions');
  const cases: Array<[string, unknown, string]> = [
    [RCS, { metadata: { name: 'a' }, spec: { replicas: 1.5, selector: { app: 'web' }, template } }, 'spec.replicas'],
    [RCS, { metadata: { name: 'a' }, spec: { replicas: '3', selector: { app: 'web' }, template } }, 'spec.replicas'],
    [RCS, { metadata: { name: 'a' }, spec: { replicas: 1, minReadySeconds: true, selector: { app: 'web' }, template } }, 'spec.minReadySeconds'],
    [DEPLOYMENTS, { metadata: { name: 'a' }, spec: { template, revisionHistoryLimit: 2147483648 } }, 'spec.revisionHistoryLimit'],
    [DEPLOYMENTS, { metadata: { name: 'a' }, spec: { template, progressDeadlineSeconds: 0.5 } }, 'spec.progressDeadlineSeconds'],
    [DEPLOYMENTS, { metadata: { name: 'a' }, spec: { template, strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 2147483648 } } } }, 'spec.strategy.rollingUpdate.maxSurge'],
    [DEPLOYMENTS, { metadata: { name: 'a' }, spec: { template: { ...template, spec: { ...podSpec, activeDeadlineSeconds: '60' } } } }, 'spec.template.spec.activeDeadlineSeconds'],
    [PODS, { metadata: { name: 'a' }, spec: { containers: [{ name: 'c', image: 'i', ports: [{ containerPort: 2147483648 }] }] } }, 'spec.containers[0].ports[0].containerPort'],
    [PODS, { metadata: { name: 'a' }, spec: { containers: [{ name: 'c', image: 'i', readinessProbe: { periodSeconds: '10', tcpSocket: { port: 80 } } }] } }, 'spec.containers[0].readinessProbe.periodSeconds'],
    [PODS, { metadata: { name: 'a' }, spec: { containers: [{ name: 'c', image: 7 }] } }, 'spec.containers[0].image'],
    [PODS, { metadata: { name: 'a' }, spec: { containers: [{ name: 'c', image: 'i' }], securityContext: { runAsUser: 1.5 } } }, 'spec.securityContext.runAsUser'],
    [SERVICES, { metadata: { name: 'a' }, spec: { ports: [{ port: 2147483648 }] } }, 'spec.ports[0].port'],
    [SERVICES, { metadata: { name: 'a' }, spec: { ports: [{ port: 80, targetPort: 1.5 }] } }, 'spec.ports[0].targetPort'],
    [SERVICES, { metadata: { name: 'a' }, spec: { type: 'NodePort', ports: [{ port: 80, nodePort: -2147483649 }] } }, 'spec.ports[0].nodePort'],
    [SERVICES, { metadata: { name: 'a' }, spec: { clusterIP: 10, ports: [{ port: 80 }] } }, 'spec.clusterIP'],
    [PODS, { metadata: { name: 'a', labels: { app: 5 } }, spec: podSpec }, 'metadata.labels'],
    [PODS, { metadata: { name: 'a', finalizers: [5] }, spec: podSpec }, 'metadata.finalizers'],
    [PODS, { metadata: { name: 'a', ownerReferences: [{ apiVersion: 'v1', kind: 'ReplicationController', name: 'rc', uid: 5 }] }, spec: podSpec }, 'metadata.ownerReferences[0].uid'],
  ];
  for (const [collection, body, fieldPath] of cases) assertInvalid(t, await srv.req('POST', collection, body), fieldPath);
  for (const collection of [RCS, DEPLOYMENTS, PODS, SERVICES]) await nothingStored(t, collection);
});

// Every typed field of the four kinds, one wrong value each: never a 500, always 422 at that path.

const wrong: Record<Scalar, unknown> = { int32: 2147483648, int64: 2 ** 53, intOrString: 1.5, string: 7, boolean: 'yes', quantity: true, time: 5, bytes: 5, float: 'x', object: 5, any: undefined };

function leaves(shape: Shape, keys: Array<string | number>, out: Array<{ keys: Array<string | number>; type: Scalar }>): void {
  if (typeof shape === 'string') {
    if (shape !== 'any') out.push({ keys, type: shape });
  }
  else if ('fields' in shape) for (const [k, s] of Object.entries(shape.fields)) leaves(s, [...keys, k], out);
  else if ('list' in shape) leaves(shape.list, [...keys, 0], out);
  else leaves(shape.map, [...keys, MAP_KEY], out);
}

/** The key a map leaf is set under: printed `[k]` in field paths. */
const MAP_KEY = 'k';

function pathOf(keys: Array<string | number>): string {
  return keys.map((k, i) => (typeof k === 'number' || (k === MAP_KEY && i > 0) ? `[${k}]` : i === 0 ? k : `.${k}`)).join('');
}

/** `base` with the value at `keys` set, creating objects and one-element lists on the way. */
function withValue(base: Record<string, unknown>, keys: Array<string | number>, value: unknown): Record<string, unknown> {
  const root = structuredClone(base);
  let cur: Record<string | number, unknown> = root;
  keys.forEach((k, i) => {
    if (i === keys.length - 1) cur[k] = value;
    else {
      const existing = cur[k];
      if (typeof existing !== 'object' || existing === null) cur[k] = typeof keys[i + 1] === 'number' ? [] : {};
      const next = cur[k] as Record<string | number, unknown>;
      if (Array.isArray(next) && next.length === 0) next.push({});
      cur = next;
    }
  });
  return root;
}

for (const [kind, resource, base] of [
  ['Deployment', 'DEPLOYMENTS', { metadata: { name: 'every' }, spec: { template } }],
  ['ReplicationController', 'RCS', { metadata: { name: 'every' }, spec: { selector: { app: 'web' }, template } }],
  ['Pod', 'PODS', { metadata: { name: 'every' }, spec: podSpec }],
  ['Service', 'SERVICES', { metadata: { name: 'every' }, spec: { ports: [{ port: 80 }] } }],
] as const) {
  test(`${kind}: every typed field with a wrong value is 422 at its path, nothing stored`, async (t) => {
    const collection = (await namespace(t, `every-${kind.toLowerCase()}`))[resource];
    const found: Array<{ keys: Array<string | number>; type: Scalar }> = [];
    leaves(kindSchemas[kind], [], found);
    // status is reset on create; it is written through /status (tested below)
    const specLeaves = found.filter((l) => l.keys[0] !== 'status');
    t.true(specLeaves.length > 10);
    for (const leaf of specLeaves) {
      const r = await srv.req('POST', collection, withValue(base, leaf.keys, wrong[leaf.type]));
      t.not(r.status, 500, r.text);
      assertInvalid(t, r, pathOf(leaf.keys));
    }
    await nothingStored(t, collection);
  });
}

test('updates: PUT, merge patch, JSON patch, /status and /scale refuse wrong values and keep the stored object', async (t) => {
  const { RCS } = await namespace(t, 'updates');
  const created = await srv.req('POST', RCS, { metadata: { name: 'upd' }, spec: { replicas: 1, selector: { app: 'web' }, template } });
  t.is(created.status, 201, created.text);
  const rv = created.json.metadata.resourceVersion;
  assertInvalid(t, await srv.req('PUT', `${RCS}/upd`, { ...created.json, spec: { ...created.json.spec, replicas: '3' } }), 'spec.replicas');
  assertInvalid(t, await srv.req('PATCH', `${RCS}/upd`, '{"spec":{"replicas":1.5}}', { 'content-type': 'application/merge-patch+json' }), 'spec.replicas');
  assertInvalid(t, await srv.req('PATCH', `${RCS}/upd`, '{"spec":{"replicas":2147483648}}', { 'content-type': 'application/strategic-merge-patch+json' }), 'spec.replicas');
  assertInvalid(t, await srv.req('PATCH', `${RCS}/upd`, '[{"op":"replace","path":"/spec/replicas","value":9007199254740993}]', { 'content-type': 'application/json-patch+json' }), 'spec.replicas');
  assertInvalid(t, await srv.req('PATCH', `${RCS}/upd`, '{"metadata":{"generateName":7}}', { 'content-type': 'application/merge-patch+json' }), 'metadata.generateName');
  assertInvalid(t, await srv.req('PUT', `${RCS}/upd/status`, { ...created.json, status: { replicas: 2147483648 } }), 'status.replicas');
  const scale = await srv.req('PUT', `${RCS}/upd/scale`, { kind: 'Scale', apiVersion: 'autoscaling/v1', metadata: { name: 'upd', namespace: 'updates' }, spec: { replicas: 2147483648 } });
  assertInvalid(t, scale, 'spec.replicas', INT32_MESSAGE);
  t.regex(scale.json.message, /^Scale\.autoscaling "upd" is invalid: /);
  assertInvalid(t, await srv.req('PATCH', `${RCS}/upd/scale`, '{"spec":{"replicas":0.5}}', { 'content-type': 'application/merge-patch+json' }), 'spec.replicas');
  const now = await srv.req('GET', `${RCS}/upd`);
  t.is(now.json.metadata.resourceVersion, rv, 'nothing was written');
  t.is(now.json.spec.replicas, 1);
  t.is(now.json.status.replicas, 0);
  // a valid scale still works
  const ok = await srv.req('PUT', `${RCS}/upd/scale`, { kind: 'Scale', apiVersion: 'autoscaling/v1', metadata: { name: 'upd', namespace: 'updates' }, spec: { replicas: 3 } });
  t.is(ok.status, 200, ok.text);
  t.is(ok.json.spec.replicas, 3);
  t.is((await srv.req('DELETE', `${RCS}/upd`)).status, 200);
});

test('namespace finalizers through /finalize: a list of strings', async (t) => {
  const ns = await srv.req('POST', '/api/v1/namespaces', { metadata: { name: 'fin' } });
  t.is(ns.status, 201, ns.text);
  const put = (finalizers: unknown) => srv.req('PUT', '/api/v1/namespaces/fin/finalize', { metadata: { name: 'fin' }, spec: { finalizers } });
  assertInvalid(t, await put('platform'), 'spec.finalizers', 'must be a list');
  const one = await put(['platform', 7]);
  assertInvalid(t, one, 'spec.finalizers[1]', 'must be a string');
  t.is(one.json.details.causes.length, 1);
  t.deepEqual((await srv.req('GET', '/api/v1/namespaces/fin')).json.spec.finalizers, ['platform'], 'unchanged');
  t.is((await put([])).status, 200);
});

test('rollback revision and delete gracePeriodSeconds are int64', async (t) => {
  const { DEPLOYMENTS } = await namespace(t, 'rollback');
  const d = await srv.req('POST', DEPLOYMENTS, { metadata: { name: 'rb' }, spec: { template } });
  t.is(d.status, 201, d.text);
  const rb = await srv.req('POST', `${DEPLOYMENTS}/rb/rollback`, `{"kind":"DeploymentRollback","apiVersion":"extensions/v1beta1","name":"rb","rollbackTo":{"revision":9007199254740993}}`, JSON_TYPE);
  assertInvalid(t, rb, 'rollbackTo.revision', INT64_MESSAGE);
  assertInvalid(t, await srv.req('POST', `${DEPLOYMENTS}/rb/rollback`, { name: 'rb', rollbackTo: { revision: '2' } }), 'rollbackTo.revision');
  t.is((await srv.req('GET', `${DEPLOYMENTS}/rb`)).json.spec.rollbackTo, undefined);
  const del = await srv.req('DELETE', `${DEPLOYMENTS}/rb`, '{"kind":"DeleteOptions","apiVersion":"v1","gracePeriodSeconds":100000000000000000000}', JSON_TYPE);
  assertInvalid(t, del, 'gracePeriodSeconds');
  t.is((await srv.req('GET', `${DEPLOYMENTS}/rb`)).status, 200, 'not deleted');
  t.is((await srv.req('DELETE', `${DEPLOYMENTS}/rb`)).status, 200);
});

test('times are RFC 3339, list items and map values are not null, and rules never see a wrong type (a 422, never a 500)', async (t) => {
  const ns = 'wrong-types';
  t.is((await srv.req('POST', '/api/v1/namespaces', { metadata: { name: ns } })).status, 201);
  const event = { metadata: { name: 'e' }, involvedObject: { kind: 'Pod', name: 'p', namespace: ns }, reason: 'R', message: 'm' };
  for (const [field, value] of [['firstTimestamp', 'yesterday'], ['lastTimestamp', '2020-13-01T00:00:00Z'], ['eventTime', '2020-02-30T00:00:00.000000Z'], ['firstTimestamp', '2020-01-01 00:00:00Z']] as const) {
    const r = await srv.req('POST', `/api/v1/namespaces/${ns}/events`, { ...event, [field]: value });
    assertInvalid(t, r, field, 'must be a time in RFC 3339 format, such as 2006-01-02T15:04:05Z');
  }
  for (const ok of ['2020-01-01T00:00:00Z', '2020-02-29T23:59:59.123456+05:30', '2021-06-30T12:00:00-07:00']) {
    const r = await srv.req('POST', `/api/v1/namespaces/${ns}/events`, { ...event, metadata: { name: `ok-${ok.length}-${ok.slice(-3).replace(/\W/g, '')}` }, firstTimestamp: ok, lastTimestamp: ok });
    t.is(r.status, 201, `${ok}: ${r.text}`);
  }
  // a pod template's own metadata is the client's
  const rc = { metadata: { name: 'rc' }, spec: { replicas: 1, selector: { app: 'web' }, template: { ...template, metadata: { ...template.metadata, creationTimestamp: 'now' } } } };
  assertInvalid(t, await srv.req('POST', `/api/v1/namespaces/${ns}/replicationcontrollers`, rc), 'spec.template.metadata.creationTimestamp');

  // a selector whose matchExpressions is no list: the type error, not the selector rule's crash
  const rs = { metadata: { name: 'rs' }, spec: { replicas: 1, selector: { matchLabels: { app: 'web' }, matchExpressions: 0 }, template } };
  assertInvalid(t, await srv.req('POST', `/apis/apps/v1/namespaces/${ns}/replicasets`, rs), 'spec.selector.matchExpressions', 'must be a list');
  const badOp = { ...rs, spec: { ...rs.spec, selector: { matchExpressions: [{ key: 'app', operator: 7 }] } } };
  const r = await srv.req('POST', `/apis/apps/v1/namespaces/${ns}/replicasets`, badOp);
  t.is(r.status, 422, r.text);

  // null where a list item belongs
  const role = await srv.req('POST', `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/roles`, { metadata: { name: 'r' }, rules: [{ verbs: ['get', null], apiGroups: [''], resources: ['pods'] }] });
  assertInvalid(t, role, 'rules[0].verbs[1]', 'must be a string');
  const cm = await srv.req('POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'c' }, data: { k: null } });
  assertInvalid(t, cm, 'data[k]', 'must be a string');

  // a name that is no string, on a kind whose rules read the name
  const tpr = await srv.req('POST', '/apis/extensions/v1beta1/thirdpartyresources', { metadata: { name: true }, versions: [{ name: 'v1' }] });
  assertInvalid(t, tpr, 'metadata.name', 'must be a string');
  for (const path of [`/api/v1/namespaces/${ns}/events`, `/apis/apps/v1/namespaces/${ns}/replicasets`, `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/roles`, `/api/v1/namespaces/${ns}/configmaps`]) {
    const list = await srv.req('GET', path);
    t.true(list.json.items.every((i: { metadata: { name: string } }) => i.metadata.name.startsWith('ok-')), `${path}: nothing invalid stored`);
  }
});
