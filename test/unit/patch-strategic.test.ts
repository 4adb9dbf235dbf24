import test from 'ava';
import type { JsonObject } from '../../src/api/object.ts';
import { mergeRulesFor } from '../../src/kinds/strategies.ts';
import { applyStrategicMergePatch } from '../../src/registry/patch/strategic.ts';
import { StatusError } from '../../src/request/errors.ts';

const podRules = mergeRulesFor('Pod');
const deploymentRules = mergeRulesFor('Deployment');

function pod(): JsonObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web', namespace: 'default', labels: { app: 'web', tier: 'front' }, finalizers: ['a.io/x', 'b.io/y'] },
    spec: {
      containers: [
        {
          name: 'app',
          image: 'nginx:1',
          env: [
            { name: 'A', value: '1' },
            { name: 'B', value: '2' },
          ],
          ports: [{ containerPort: 80 }, { containerPort: 443 }],
          volumeMounts: [{ name: 'data', mountPath: '/data' }],
        },
        { name: 'sidecar', image: 'busybox', args: ['sleep', '1000'] },
      ],
      volumes: [{ name: 'data', emptyDir: {} }],
      tolerations: [{ key: 'k', operator: 'Exists' }],
    },
  };
}

function deployment(): JsonObject {
  return {
    apiVersion: 'extensions/v1beta1',
    kind: 'Deployment',
    metadata: { name: 'd', namespace: 'default' },
    spec: {
      replicas: 2,
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } },
      template: {
        metadata: { labels: { app: 'd' } },
        spec: {
          containers: [
            { name: 'a', image: 'a:1', env: [{ name: 'X', value: 'x' }] },
            { name: 'b', image: 'b:1' },
          ],
        },
      },
    },
  };
}

function smp(original: JsonObject, patch: JsonObject, rules = podRules): JsonObject {
  return applyStrategicMergePatch(original, patch, rules);
}

function status400(t: import('ava').ExecutionContext, fn: () => unknown, fragment?: string): void {
  const err = t.throws(fn);
  t.true(err instanceof StatusError, String(err));
  t.is((err as StatusError).code, 400);
  t.is((err as StatusError).reason, 'BadRequest');
  if (fragment) t.true(err!.message.includes(fragment), err!.message);
}

const spec = (o: JsonObject) => o.spec as JsonObject;
const containers = (o: JsonObject) => spec(o).containers as JsonObject[];
const meta = (o: JsonObject) => o.metadata as JsonObject;

test('containers merge by name: only the named container changes, others stay', (t) => {
  const out = smp(pod(), { spec: { containers: [{ name: 'app', image: 'nginx:2' }] } });
  t.is(containers(out).length, 2);
  t.is(containers(out)[0].image, 'nginx:2');
  t.deepEqual(containers(out)[0].env, pod().spec && containers(pod())[0].env, 'unmentioned fields of the merged element survive');
  t.deepEqual(containers(out)[1], containers(pod())[1]);
});

test('a container with a new name is added (new elements go first, as on the reference server)', (t) => {
  const out = smp(pod(), { spec: { containers: [{ name: 'extra', image: 'redis' }] } });
  t.deepEqual(
    containers(out).map((c) => c.name),
    ['extra', 'app', 'sidecar'],
  );
});

test('patch elements keep their patch order; a server-only one goes before a patch element it preceded', (t) => {
  const original: JsonObject = { spec: { containers: ['a', 'b', 'c', 'd'].map((name) => ({ name })) } };
  const out = smp(original, { spec: { containers: [{ name: 'd', image: 'd' }, { name: 'b', image: 'b' }] } });
  t.deepEqual(
    containers(out).map((c) => c.name),
    ['a', 'c', 'd', 'b'],
  );
});

test('an env entry is deleted with $patch: delete, another added', (t) => {
  const out = smp(pod(), {
    spec: { containers: [{ name: 'app', env: [{ name: 'A', $patch: 'delete' }, { name: 'C', value: '3' }] }] },
  });
  t.deepEqual(containers(out)[0].env, [
    { name: 'C', value: '3' },
    { name: 'B', value: '2' },
  ]);
});

test('a whole container is deleted with $patch: delete', (t) => {
  const out = smp(pod(), { spec: { containers: [{ name: 'sidecar', $patch: 'delete' }] } });
  t.deepEqual(
    containers(out).map((c) => c.name),
    ['app'],
  );
});

test('a merge list is replaced with a {"$patch":"replace"} element', (t) => {
  const out = smp(pod(), { spec: { containers: [{ name: 'only', image: 'x' }, { $patch: 'replace' }] } });
  t.deepEqual(containers(out), [{ name: 'only', image: 'x' }]);
});

test('a map is replaced with $patch: replace', (t) => {
  const out = smp(pod(), { metadata: { labels: { $patch: 'replace', fresh: 'yes' } } });
  t.deepEqual(meta(out).labels, { fresh: 'yes' });
});

test('$patch: delete on a map empties it, as the reference server does', (t) => {
  const out = smp(pod(), { metadata: { labels: { $patch: 'delete' } } });
  t.deepEqual(meta(out).labels, {});
});

test('$patch: merge on a map is the default behaviour', (t) => {
  const out = smp(pod(), { metadata: { labels: { $patch: 'merge', more: '1' } } });
  t.deepEqual(meta(out).labels, { app: 'web', tier: 'front', more: '1' });
});

test('null removes a label; other labels stay', (t) => {
  const out = smp(pod(), { metadata: { labels: { tier: null, env: 'prod' } } });
  t.deepEqual(meta(out).labels, { app: 'web', env: 'prod' });
});

test('null removes a whole field; null for a missing field is ignored', (t) => {
  const out = smp(pod(), { spec: { tolerations: null, nodeName: null } });
  t.false('tolerations' in spec(out));
  t.false('nodeName' in spec(out));
});

test('finalizers are unioned as a set', (t) => {
  const out = smp(pod(), { metadata: { finalizers: ['c.io/z', 'a.io/x'] } });
  t.deepEqual(meta(out).finalizers, ['c.io/z', 'a.io/x', 'b.io/y']);
});

test('$deleteFromPrimitiveList removes values from a primitive list', (t) => {
  const out = smp(pod(), { metadata: { '$deleteFromPrimitiveList/finalizers': ['a.io/x', 'not-there'] } });
  t.deepEqual(meta(out).finalizers, ['b.io/y']);
});

test('lists without a merge rule are replaced', (t) => {
  const out = smp(pod(), { spec: { containers: [{ name: 'sidecar', args: ['run'] }], tolerations: [{ key: 'other', operator: 'Exists' }] } });
  t.deepEqual(containers(out)[1].args, ['run']);
  t.deepEqual(spec(out).tolerations, [{ key: 'other', operator: 'Exists' }]);
});

test('ports merge by containerPort and volumeMounts by mountPath', (t) => {
  const out = smp(pod(), {
    spec: {
      containers: [
        {
          name: 'app',
          ports: [{ containerPort: 443, name: 'https' }, { containerPort: 8080 }],
          volumeMounts: [{ mountPath: '/data', readOnly: true }],
        },
      ],
    },
  });
  const app = containers(out)[0];
  t.deepEqual(app.ports, [{ containerPort: 80 }, { containerPort: 443, name: 'https' }, { containerPort: 8080 }]);
  t.deepEqual(app.volumeMounts, [{ name: 'data', mountPath: '/data', readOnly: true }]);
});

test('status conditions merge by type', (t) => {
  const original: JsonObject = {
    ...pod(),
    status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'False' }, { type: 'PodScheduled', status: 'True' }] },
  };
  const out = smp(original, { status: { conditions: [{ type: 'Ready', status: 'True' }] } });
  t.deepEqual((out.status as JsonObject).conditions, [
    { type: 'Ready', status: 'True' },
    { type: 'PodScheduled', status: 'True' },
  ]);
});

test('deployment: the pod template merges by the same rules under spec.template.spec', (t) => {
  const out = smp(
    deployment(),
    {
      spec: {
        replicas: 3,
        template: {
          metadata: { labels: { version: '2' } },
          spec: { containers: [{ name: 'b', image: 'b:2', env: [{ name: 'Y', value: 'y' }] }] },
        },
      },
    },
    deploymentRules,
  );
  const s = spec(out);
  t.is(s.replicas, 3);
  const tmpl = s.template as JsonObject;
  t.deepEqual((tmpl.metadata as JsonObject).labels, { app: 'd', version: '2' });
  t.deepEqual((tmpl.spec as JsonObject).containers, [
    { name: 'a', image: 'a:1', env: [{ name: 'X', value: 'x' }] },
    { name: 'b', image: 'b:2', env: [{ name: 'Y', value: 'y' }] },
  ]);
});

test('deployment: $retainKeys clears the strategy keys not retained', (t) => {
  const out = smp(deployment(), { spec: { strategy: { $retainKeys: ['type'], type: 'Recreate' } } }, deploymentRules);
  t.deepEqual(spec(out).strategy, { type: 'Recreate' });
});

test('$setElementOrder reorders a merge list; server-only elements keep their place', (t) => {
  const out = smp(pod(), { spec: { '$setElementOrder/containers': [{ name: 'sidecar' }, { name: 'app' }] } });
  t.deepEqual(
    containers(out).map((c) => c.name),
    ['sidecar', 'app'],
  );
  const withServerOnly = smp(pod(), {
    spec: { '$setElementOrder/containers': [{ name: 'new' }, { name: 'app' }], containers: [{ name: 'new', image: 'n' }] },
  });
  t.deepEqual(
    containers(withServerOnly).map((c) => c.name),
    ['new', 'app', 'sidecar'],
  );
});

test('a list the tables do not know is merged by the key its $setElementOrder names', (t) => {
  const original: JsonObject = { spec: { widgets: [{ id: 'a', v: 1 }, { id: 'b', v: 1 }] } };
  const out = smp(original, { spec: { '$setElementOrder/widgets': [{ id: 'a' }, { id: 'b' }], widgets: [{ id: 'b', v: 2 }] } }, []);
  t.deepEqual(spec(out).widgets, [
    { id: 'a', v: 1 },
    { id: 'b', v: 2 },
  ]);
});

test('new elements and new maps are taken without their nulls and directives', (t) => {
  const out = smp(pod(), {
    spec: {
      containers: [{ name: 'new', image: 'n', args: null, '$setElementOrder/env': [{ name: 'E' }], env: [{ name: 'E', value: 'e' }] }],
      securityContext: { runAsUser: 1, fsGroup: null },
    },
  });
  t.deepEqual(containers(out)[0], { name: 'new', image: 'n', env: [{ name: 'E', value: 'e' }] });
  t.deepEqual(spec(out).securityContext, { runAsUser: 1 });
});

test('a value of another type replaces the original one', (t) => {
  const out = smp(pod(), { spec: { volumes: { not: 'a list' }, containers: [{ name: 'app', image: { $patch: 'x', weird: true } }] } });
  t.deepEqual(spec(out).volumes, { not: 'a list' });
  t.deepEqual(containers(out)[0].image, { weird: true });
});

test('$patch: replace at the root replaces the whole object', (t) => {
  const out = smp(pod(), { $patch: 'replace', kind: 'Pod', metadata: { name: 'x' } });
  t.deepEqual(out, { kind: 'Pod', metadata: { name: 'x' } });
});

test('inputs are not changed', (t) => {
  const original = pod();
  const patch: JsonObject = {
    metadata: { labels: { app: null }, finalizers: ['z'] },
    spec: { containers: [{ name: 'app', env: [{ name: 'A', $patch: 'delete' }] }, { $patch: 'replace' }] },
  };
  const originalCopy = structuredClone(original);
  const patchCopy = structuredClone(patch);
  const out = smp(original, patch);
  t.deepEqual(original, originalCopy);
  t.deepEqual(patch, patchCopy);
  (meta(out).labels as JsonObject).changed = 'yes';
  t.false('changed' in (meta(original).labels as JsonObject));
});

test('an own __proto__ key in a patch is a plain key, not a prototype change', (t) => {
  const patch = JSON.parse('{"metadata":{"annotations":{"__proto__":{"polluted":"yes"}}}}') as JsonObject;
  const out = smp(pod(), patch);
  const annotations = meta(out).annotations as JsonObject;
  t.is(Object.getPrototypeOf(annotations), Object.prototype);
  t.deepEqual(Object.getOwnPropertyDescriptor(annotations, '__proto__')?.value, { polluted: 'yes' });
  t.is(({} as Record<string, unknown>).polluted, undefined);
});

// ---- malformed directives → 400 ----

test('unknown $patch value in a map → 400', (t) => {
  status400(t, () => smp(pod(), { spec: { $patch: 'explode' } }), 'unknown patch type');
});

test('unknown $patch value in a list element → 400', (t) => {
  status400(t, () => smp(pod(), { spec: { containers: [{ name: 'app', $patch: 'explode' }] } }), 'unknown patch type');
});

test('$patch: merge as a list element → 400', (t) => {
  status400(t, () => smp(pod(), { spec: { containers: [{ name: 'app', $patch: 'merge' }] } }), 'merging lists');
});

test('a merge-keyed element without its key → 400', (t) => {
  status400(t, () => smp(pod(), { spec: { containers: [{ image: 'no-name' }] } }), 'does not contain declared merge key: name');
});

test('$patch: delete without the merge key → 400', (t) => {
  status400(t, () => smp(pod(), { spec: { containers: [{ $patch: 'delete' }] } }), 'merge key');
});

test('a primitive in a merge-keyed list → 400', (t) => {
  status400(t, () => smp(pod(), { spec: { containers: ['app'] } }), 'not a map');
});

test('$deleteFromPrimitiveList that is not a list → 400', (t) => {
  status400(t, () => smp(pod(), { metadata: { '$deleteFromPrimitiveList/finalizers': 'a.io/x' } }));
});

test('$setElementOrder that is not a list, or whose entries lack the merge key → 400', (t) => {
  status400(t, () => smp(pod(), { spec: { '$setElementOrder/containers': { name: 'app' } } }));
  status400(t, () => smp(pod(), { spec: { '$setElementOrder/containers': [{ image: 'x' }] } }), 'merge key');
});

test('$setElementOrder that contradicts the patch list → 400', (t) => {
  status400(
    t,
    () =>
      smp(pod(), {
        spec: { '$setElementOrder/containers': [{ name: 'app' }, { name: 'sidecar' }], containers: [{ name: 'sidecar', image: 's' }, { name: 'app', image: 'a' }] },
      }),
    'does not match',
  );
});

test('a directive key without its field → 400', (t) => {
  status400(t, () => smp(pod(), { spec: { $setElementOrder: [] } }));
  status400(t, () => smp(pod(), { metadata: { '$deleteFromPrimitiveList/': [] } }));
});

test('$retainKeys that is not a list, or that leaves out a key the patch sets → 400', (t) => {
  status400(t, () => smp(deployment(), { spec: { strategy: { $retainKeys: 'type' } } }, deploymentRules));
  status400(t, () => smp(deployment(), { spec: { strategy: { $retainKeys: ['type'], rollingUpdate: { maxSurge: 2 } } } }, deploymentRules));
});

test('long lists merge in near-linear time', (t) => {
  const n = 5000;
  const original: JsonObject = {
    metadata: { finalizers: Array.from({ length: n }, (_, i) => `f${i}`) },
    spec: { containers: Array.from({ length: n }, (_, i) => ({ name: `c${i}`, image: 'x' })) },
  };
  const patch: JsonObject = {
    metadata: { finalizers: Array.from({ length: n }, (_, i) => `g${i}`), '$deleteFromPrimitiveList/finalizers': Array.from({ length: n }, (_, i) => `f${2 * i}`) },
    spec: {
      '$setElementOrder/containers': Array.from({ length: n }, (_, i) => ({ name: `c${n - 1 - i}` })),
      containers: Array.from({ length: n }, (_, i) => ({ name: `c${n - 1 - i}`, image: 'y' })),
    },
  };
  const started = performance.now();
  const out = smp(original, patch);
  t.true(performance.now() - started < 3000);
  t.is(containers(out)[0].name, `c${n - 1}`);
  t.true(containers(out).every((c) => c.image === 'y'));
  t.is((meta(out).finalizers as string[]).length, n + n / 2);
});

test('ownership: the patch is only read and never shared with the result; the original is copied unless handed over', (t) => {
  const patch: JsonObject = {
    metadata: { labels: { tier: null, extra: 'y' } },
    spec: {
      containers: [{ name: 'app', image: 'nginx:2', env: [{ name: 'C', value: '3' }] }, { name: 'new', image: 'x', args: ['a'] }],
      volumes: [{ name: 'more', emptyDir: {} }],
    },
  } as unknown as JsonObject;
  const patchBefore = structuredClone(patch);
  const original = pod();
  const originalBefore = structuredClone(original);

  const copied = smp(original, patch);
  t.deepEqual(original, originalBefore, 'not handed over: the original is untouched');
  t.deepEqual(patch, patchBefore, 'the patch is untouched');
  // writing into the result reaches neither input
  const added = containers(copied).find((c) => c.name === 'new')!;
  (added.args as string[]).push('b');
  ((containers(copied)[0].env as JsonObject[])[0] as JsonObject).value = 'changed';
  t.deepEqual(patch, patchBefore, 'no part of the patch is in the result');
  t.deepEqual(original, originalBefore);

  const owned = pod();
  const result = applyStrategicMergePatch(owned, patch, podRules, true);
  t.is(result, owned, 'handed over: merged in place, no copy');
  t.is(meta(owned).labels && (meta(owned).labels as JsonObject).extra, 'y');
  t.deepEqual(result, smp(pod(), patch), 'in place or copied, the same answer');
  t.deepEqual(patch, patchBefore);
});

test('$setElementOrder of a list the patch does not merge: named elements in its order, the others where the server had them', (t) => {
  const original = { metadata: { finalizers: ['a', 'b', 'c', 'd'] } } as JsonObject;
  const out = smp(original, { metadata: { '$setElementOrder/finalizers': ['d', 'a'], '$deleteFromPrimitiveList/finalizers': ['b'] } } as unknown as JsonObject);
  t.deepEqual(meta(out).finalizers, ['c', 'd', 'a']);
  t.deepEqual(meta(original).finalizers, ['a', 'b', 'c', 'd']);
});
