// Typed fields (src/api/validation/schema.ts, kind-schemas.ts): integers within their Go width,
// strings and booleans where the reference has them, reported as field errors with the path.
import test from 'ava';
import { fieldErrorString, field } from '../../src/request/errors.ts';
import type { ApiObject, JsonObject, JsonValue } from '../../src/api/object.ts';
import { strategyFor } from '../../src/kinds/strategies.ts';
import { validateObjectMeta } from '../../src/api/validation/meta.ts';
import { kinds, kindSchemas } from '../../src/kinds/index.ts';
import { checkShape, list, map, mergeTypeErrors, struct, INT32_MESSAGE, INT64_MESSAGE, type Scalar, type Shape } from '../../src/api/validation/schema.ts';
import type { ObjectMeta } from '../../src/api/object.ts';

const strs = (v: unknown, shape: Shape, p = 'x'): string[] => checkShape(v, shape, p).map(fieldErrorString);

test('int32: integers from -2^31 to 2^31-1; no fractions, strings or booleans', (t) => {
  for (const ok of [0, 1, -1, 2147483647, -2147483648, 1e3]) t.deepEqual(strs(ok, 'int32'), [], String(ok));
  t.deepEqual(strs(2147483648, 'int32'), [`x: Invalid value: 2147483648: ${INT32_MESSAGE}`]);
  t.deepEqual(strs(-2147483649, 'int32'), [`x: Invalid value: -2147483649: ${INT32_MESSAGE}`]);
  t.deepEqual(strs(1.5, 'int32'), [`x: Invalid value: 1.5: ${INT32_MESSAGE}`]);
  t.deepEqual(strs('3', 'int32'), [`x: Invalid value: "3": ${INT32_MESSAGE}`]);
  t.deepEqual(strs(true, 'int32'), [`x: Invalid value: true: ${INT32_MESSAGE}`]);
  t.is(strs({}, 'int32').length, 1);
  t.is(strs(Number.NaN, 'int32').length, 1);
  t.is(strs(Number.POSITIVE_INFINITY, 'int32').length, 1);
});

test('int64: safe integers only (beyond 2^53 JSON.parse cannot hold the value sent)', (t) => {
  for (const ok of [0, 2147483648, -2147483649, 9007199254740991, -9007199254740991]) t.deepEqual(strs(ok, 'int64'), [], String(ok));
  // what JSON.parse makes of 9007199254740993
  const parsed = JSON.parse('9007199254740993') as number;
  t.is(parsed, 9007199254740992);
  t.deepEqual(strs(parsed, 'int64'), [`x: Invalid value: 9007199254740992: ${INT64_MESSAGE}`]);
  t.is(strs(-9007199254740992, 'int64').length, 1);
  t.is(strs(1e21, 'int64').length, 1);
  t.is(strs(0.5, 'int64').length, 1);
  t.is(strs('30', 'int64').length, 1);
});

test('intOrString, string, boolean; null and absent are zero values', (t) => {
  t.deepEqual(strs('http', 'intOrString'), []);
  t.deepEqual(strs(8080, 'intOrString'), []);
  t.deepEqual(strs(2147483648, 'intOrString'), [`x: Invalid value: 2147483648: ${INT32_MESSAGE}, or a string`]);
  t.deepEqual(strs(false, 'intOrString').length, 1);
  t.deepEqual(strs(5, 'string'), ['x: Invalid value: 5: must be a string']);
  t.deepEqual(strs('true', 'boolean'), ['x: Invalid value: "true": must be a boolean']);
  for (const s of ['int32', 'int64', 'string', 'boolean', 'intOrString'] as Scalar[]) {
    t.deepEqual(strs(null, s), []);
    t.deepEqual(strs(undefined, s), []);
  }
});

test('structs, lists and maps: paths as the reference prints them; undeclared fields are ignored', (t) => {
  const shape = struct({ a: list(struct({ n: 'int32' })), m: map('string'), s: struct({ b: 'boolean' }) });
  t.deepEqual(strs({ a: [{ n: 1 }, { n: 'two' }, null], m: { k: 1 }, s: { b: 1 }, other: 'anything' }, shape, 'spec'), [
    `spec.a[1].n: Invalid value: "two": ${INT32_MESSAGE}`,
    // a list item or map value cannot be absent: null is a wrong type, as any other
    'spec.a[2]: Invalid value: null: must be an object',
    'spec.m[k]: Invalid value: 1: must be a string',
    'spec.s.b: Invalid value: 1: must be a boolean',
  ]);
  t.deepEqual(strs({ m: { k: null }, l: [null] }, struct({ m: map('string'), l: list('any') }), 'x'), ['x.m[k]: Invalid value: null: must be a string']);
  t.deepEqual(strs({ a: 'x', m: [], s: 3 }, shape, 'spec'), [
    'spec.a: Invalid value: "x": must be a list',
    'spec.m: Invalid value: []: must be a map',
    'spec.s: Invalid value: 3: must be an object',
  ]);
  t.deepEqual(strs([], shape, ''), ['Invalid value: []: must be an object'].map((m) => `: ${m}`));
});

test('mergeTypeErrors drops rule errors on or inside a wrongly typed field only', (t) => {
  const typeErrs = [field.invalid('spec.a', 'x', 'must be a list')];
  const rules = [field.required('spec.a'), field.required('spec.a[0].b'), field.required('spec.a.b'), field.required('spec.ab'), field.required('spec.b')];
  t.deepEqual(mergeTypeErrors(typeErrs, rules).map((e) => e.field), ['spec.a', 'spec.ab', 'spec.b']);
  t.is(mergeTypeErrors([], rules), rules);
});

// ---- every declared field of every kind, through the kind's strategy ----

/** Every scalar leaf of a shape: its field path, a setter path for building an object, and its type. */
function leaves(shape: Shape, p: string, keys: Array<string | number>, out: Array<{ path: string; keys: Array<string | number>; type: Scalar }>): void {
  if (typeof shape === 'string') out.push({ path: p, keys, type: shape });
  else if ('fields' in shape) for (const [k, s] of Object.entries(shape.fields)) leaves(s, p ? `${p}.${k}` : k, [...keys, k], out);
  else if ('list' in shape) leaves(shape.list, `${p}[0]`, [...keys, 0], out);
  else leaves(shape.map, `${p}[k]`, [...keys, 'k'], out);
}

function objectWith(kind: string, keys: Array<string | number>, value: JsonValue): ApiObject {
  const root: JsonObject = { kind, metadata: { name: 'x', namespace: 'default' } };
  let cur: JsonObject | JsonValue[] = root;
  keys.forEach((k, i) => {
    if (i === keys.length - 1) {
      (cur as Record<string | number, JsonValue>)[k] = value;
      return;
    }
    const next: JsonObject | JsonValue[] = typeof keys[i + 1] === 'number' ? [] : {};
    (cur as Record<string | number, JsonValue>)[k] = next;
    cur = next;
  });
  return root as ApiObject;
}

const bad: Record<Scalar, JsonValue[]> = {
  int32: [2147483648, -2147483649, 1.5, '1', true],
  int64: [9007199254740992, 2.5, '1', false],
  intOrString: [2147483648, 0.5, true, {}],
  string: [1, true, {}, []],
  boolean: ['true', 0, {}],
  quantity: [true, {}, []],
  time: [1, true, {}],
  bytes: [1, false],
  float: ['1', true],
  object: [1, 'x', []],
  any: [],
};
const good: Record<Scalar, JsonValue> = {
  int32: 2147483647, int64: 9007199254740991, intOrString: 'name', string: 'value', boolean: true,
  quantity: '100m', time: '2016-01-01T00:00:00Z', bytes: 'YQ==', float: 1.5, object: { a: 1 }, any: [1],
};

const typeMessages = [INT32_MESSAGE, INT64_MESSAGE, `${INT32_MESSAGE}, or a string`, 'must be a string', 'must be a boolean', 'must be an object', 'must be a list', 'must be a map', 'must be a number', 'must be a quantity (a string or a number)'];
/** Kinds that are stored (have a strategy) are type-checked; the reviews' schemas only document them. */
const checkedKinds = new Set(kinds.filter((k) => k.strategy).map((k) => k.kind));

test('every typed field of every kind: wrong values are refused at their path, right ones pass the type check', (t) => {
  let checked = 0;
  for (const [kind, shape] of Object.entries(kindSchemas)) {
    if (!checkedKinds.has(kind)) continue;
    const validate = strategyFor(kind).validate;
    t.truthy(validate, kind);
    const found: Array<{ path: string; keys: Array<string | number>; type: Scalar }> = [];
    leaves(shape, '', [], found);
    for (const leaf of found) {
      for (const v of bad[leaf.type]) {
        const errs = validate!(objectWith(kind, leaf.keys, v), undefined).filter((e) => e.field === leaf.path);
        t.is(errs.length, 1, `${kind} ${leaf.path} = ${JSON.stringify(v)}: ${errs.map(fieldErrorString).join('; ')}`);
        t.is(errs[0]?.type, 'FieldValueInvalid');
        checked++;
      }
      const errs = validate!(objectWith(kind, leaf.keys, good[leaf.type]), undefined).filter((e) => e.field === leaf.path && typeMessages.includes(e.detail ?? ''));
      t.deepEqual(errs, [], `${kind} ${leaf.path}`);
    }
  }
  t.true(checked > 500, `${checked} checks`);
});

test('the integer fields the issue names have their reference widths', (t) => {
  const width = (kind: string, fieldPath: string): Scalar | undefined => {
    const found: Array<{ path: string; keys: Array<string | number>; type: Scalar }> = [];
    leaves(kindSchemas[kind], '', [], found);
    return found.find((l) => l.path === fieldPath)?.type;
  };
  const expected: Array<[string, string, Scalar]> = [
    ['ReplicationController', 'spec.replicas', 'int32'],
    ['ReplicaSet', 'spec.replicas', 'int32'],
    ['Deployment', 'spec.replicas', 'int32'],
    ['Deployment', 'spec.minReadySeconds', 'int32'],
    ['Deployment', 'spec.revisionHistoryLimit', 'int32'],
    ['Deployment', 'spec.progressDeadlineSeconds', 'int32'],
    ['Deployment', 'spec.rollbackTo.revision', 'int64'],
    ['Deployment', 'spec.strategy.rollingUpdate.maxSurge', 'intOrString'],
    ['Deployment', 'spec.template.spec.terminationGracePeriodSeconds', 'int64'],
    ['Pod', 'spec.containers[0].ports[0].containerPort', 'int32'],
    ['Pod', 'spec.containers[0].ports[0].hostPort', 'int32'],
    ['Pod', 'spec.containers[0].livenessProbe.httpGet.port', 'intOrString'],
    ['Pod', 'spec.containers[0].readinessProbe.periodSeconds', 'int32'],
    ['Pod', 'spec.containers[0].securityContext.runAsUser', 'int64'],
    ['Pod', 'spec.initContainers[0].ports[0].containerPort', 'int32'],
    ['Pod', 'spec.terminationGracePeriodSeconds', 'int64'],
    ['Pod', 'spec.activeDeadlineSeconds', 'int64'],
    ['Pod', 'spec.securityContext.supplementalGroups[0]', 'int64'],
    ['Pod', 'spec.volumes[0].secret.defaultMode', 'int32'],
    ['Service', 'spec.ports[0].port', 'int32'],
    ['Service', 'spec.ports[0].nodePort', 'int32'],
    ['Service', 'spec.ports[0].targetPort', 'intOrString'],
    ['Endpoints', 'subsets[0].ports[0].port', 'int32'],
    ['Job', 'spec.completions', 'int32'],
    ['Job', 'spec.parallelism', 'int32'],
    ['Job', 'spec.activeDeadlineSeconds', 'int64'],
    ['HorizontalPodAutoscaler', 'spec.minReplicas', 'int32'],
    ['HorizontalPodAutoscaler', 'spec.maxReplicas', 'int32'],
    ['HorizontalPodAutoscaler', 'spec.targetCPUUtilizationPercentage', 'int32'],
    ['HorizontalPodAutoscaler', 'spec.cpuUtilization.targetPercentage', 'int32'],
    ['Scale', 'spec.replicas', 'int32'],
    ['Event', 'count', 'int32'],
    ['PersistentVolume', 'spec.gcePersistentDisk.partition', 'int32'],
    ['Node', 'status.daemonEndpoints.kubeletEndpoint.Port', 'int32'],
  ];
  for (const [kind, p, type] of expected) t.is(width(kind, p), type, `${kind} ${p}`);
});

test('a type error replaces the rule error about the same field', (t) => {
  const errs = (kind: string, obj: JsonObject) => strategyFor(kind).validate!({ kind, metadata: { name: 'x', namespace: 'd' }, ...obj } as ApiObject, undefined).map(fieldErrorString);
  const tpl = { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'i', imagePullPolicy: 'Always' }], restartPolicy: 'Always', dnsPolicy: 'ClusterFirst' } };
  t.deepEqual(errs('ReplicationController', { spec: { replicas: 1.5, selector: { a: 'b' }, template: tpl } }), [`spec.replicas: Invalid value: 1.5: ${INT32_MESSAGE}`]);
  t.deepEqual(errs('ReplicationController', { spec: { replicas: 2147483648, selector: { a: 'b' }, template: tpl } }), [`spec.replicas: Invalid value: 2147483648: ${INT32_MESSAGE}`]);
  // the container name: one error saying what is wrong, not "Required value"
  const pod = errs('Pod', { spec: { ...tpl.spec, containers: [{ name: 7, image: 'i', imagePullPolicy: 'Always' }] } });
  t.deepEqual(pod, ['spec.containers[0].name: Invalid value: 7: must be a string']);
  t.deepEqual(errs('ClusterRole', { rules: [{ verbs: 'get', apiGroups: [''], resources: ['pods'] }] }), ['rules[0].verbs: Invalid value: "get": must be a list']);
  t.deepEqual(errs('Service', { spec: { ports: [{ port: 80, protocol: 'TCP', targetPort: 2147483648 }], type: 'ClusterIP', sessionAffinity: 'None' } }), [
    `spec.ports[0].targetPort: Invalid value: 2147483648: ${INT32_MESSAGE}, or a string`,
  ]);
});

// ---- ObjectMeta ----

const meta = (m: JsonObject): string[] => validateObjectMeta(m as ObjectMeta, { namespaced: true, nameRule: 'dns1123-subdomain', isCreate: true }).map(fieldErrorString);

test('ObjectMeta: names are strings; a wrongly typed generateName is not reported as a missing name', (t) => {
  t.deepEqual(meta({ name: 5, namespace: 'd' }), ['metadata.name: Invalid value: 5: must be a string']);
  t.deepEqual(meta({ generateName: 5, namespace: 'd' }), ['metadata.generateName: Invalid value: 5: must be a string']);
  t.deepEqual(meta({ generateName: { a: 1 }, namespace: 'd' }), ['metadata.generateName: Invalid value: {"a":1}: must be a string']);
  t.deepEqual(meta({ name: 'a', namespace: ['d'] }), ['metadata.namespace: Invalid value: ["d"]: must be a string']);
  t.deepEqual(meta({ name: 'a', namespace: 'd', uid: 1, clusterName: false }), [
    'metadata.uid: Invalid value: 1: must be a string',
    'metadata.clusterName: Invalid value: false: must be a string',
  ]);
});

test('ObjectMeta: generation and deletionGracePeriodSeconds are int64', (t) => {
  t.deepEqual(meta({ name: 'a', namespace: 'd', generation: 1.5 }), [`metadata.generation: Invalid value: 1.5: ${INT64_MESSAGE}`]);
  t.deepEqual(meta({ name: 'a', namespace: 'd', generation: '1' }), [`metadata.generation: Invalid value: "1": ${INT64_MESSAGE}`]);
  t.deepEqual(meta({ name: 'a', namespace: 'd', generation: 2 ** 53 }), [`metadata.generation: Invalid value: 9007199254740992: ${INT64_MESSAGE}`]);
  t.deepEqual(meta({ name: 'a', namespace: 'd', generation: 2 ** 40 }), []);
  t.deepEqual(meta({ name: 'a', namespace: 'd', deletionGracePeriodSeconds: '30' }), [`metadata.deletionGracePeriodSeconds: Invalid value: "30": ${INT64_MESSAGE}`]);
});

test('ObjectMeta: labels, annotations, finalizers hold strings; ownerReferences have their shape', (t) => {
  t.deepEqual(meta({ name: 'a', namespace: 'd', labels: { k: 1 } }), ['metadata.labels: Invalid value: 1: label values must be strings']);
  t.deepEqual(meta({ name: 'a', namespace: 'd', labels: ['k'] }), ['metadata.labels: Invalid value: ["k"]: must be a map of string keys to string values']);
  t.deepEqual(meta({ name: 'a', namespace: 'd', annotations: { k: { v: 1 } } }), ['metadata.annotations[k]: Invalid value: {"v":1}: annotation values must be strings']);
  t.deepEqual(meta({ name: 'a', namespace: 'd', finalizers: [1] }), ['metadata.finalizers: Invalid value: 1: finalizers must be strings']);
  t.deepEqual(meta({ name: 'a', namespace: 'd', finalizers: 'orphan' }), ['metadata.finalizers: Invalid value: "orphan": must be a list of strings']);
  t.deepEqual(meta({ name: 'a', namespace: 'd', ownerReferences: {} }), ['metadata.ownerReferences: Invalid value: {}: must be a list of owner references']);
  t.deepEqual(meta({ name: 'a', namespace: 'd', ownerReferences: ['rc'] }), ['metadata.ownerReferences[0]: Invalid value: "rc": must be an object']);
  t.deepEqual(meta({ name: 'a', namespace: 'd', ownerReferences: [{ apiVersion: 'v1', kind: 'ReplicationController', name: 5, uid: 'u', controller: 'yes' }] }), [
    'metadata.ownerReferences[0].name: Invalid value: 5: must be a string',
    'metadata.ownerReferences[0].controller: Invalid value: "yes": must be a boolean',
  ]);
});
