// The patch shapes kubectl 1.32 sends: `kubectl apply` (a three-way strategic merge patch with
// `$setElementOrder`, `$retainKeys` and `$patch: delete`), and `kubectl patch --type=...`, applied to
// live objects that carry server-set fields the client never sent.
import test from 'ava';
import type { JsonObject } from '../../src/api/object.ts';
import { mergeRulesFor } from '../../src/kinds/strategies.ts';
import { applyPatch } from '../../src/registry/patch/index.ts';

const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';
const SMP = 'application/strategic-merge-patch+json';

/** A Deployment as the server holds it after a first `kubectl apply`: defaults and status filled in. */
function liveDeployment(): JsonObject {
  return {
    apiVersion: 'extensions/v1beta1',
    kind: 'Deployment',
    metadata: {
      name: 'web',
      namespace: 'default',
      uid: 'u-1',
      resourceVersion: '12',
      generation: 1,
      labels: { app: 'web', team: 'blue' },
      annotations: { [LAST_APPLIED]: '{"apiVersion":"extensions/v1beta1","kind":"Deployment"}\n', 'deployment.kubernetes.io/revision': '1' },
    },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: 'web' } },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 1 } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: {
          containers: [
            {
              name: 'nginx',
              image: 'nginx:1',
              env: [
                { name: 'A', value: '1' },
                { name: 'B', value: '2' },
              ],
              ports: [{ containerPort: 80, protocol: 'TCP' }],
              imagePullPolicy: 'IfNotPresent',
              terminationMessagePath: '/dev/termination-log',
            },
          ],
          volumes: [{ name: 'data', emptyDir: {} }],
          restartPolicy: 'Always',
          dnsPolicy: 'ClusterFirst',
        },
      },
    },
    status: { observedGeneration: 1, replicas: 2, conditions: [{ type: 'Available', status: 'True' }] },
  };
}

function apply(contentType: string, original: JsonObject, patch: unknown, kind = 'Deployment'): JsonObject {
  return applyPatch(contentType, original, JSON.stringify(patch), mergeRulesFor(kind));
}

const podSpec = (d: JsonObject) => ((d.spec as JsonObject).template as JsonObject).spec as JsonObject;
const firstContainer = (d: JsonObject) => (podSpec(d).containers as JsonObject[])[0];

test('kubectl apply: a changed image', (t) => {
  const newConfig = '{"apiVersion":"extensions/v1beta1","kind":"Deployment","spec":{"template":{"spec":{"containers":[{"image":"nginx:2","name":"nginx"}]}}}}\n';
  const out = apply(SMP, liveDeployment(), {
    metadata: { annotations: { [LAST_APPLIED]: newConfig } },
    spec: { template: { spec: { '$setElementOrder/containers': [{ name: 'nginx' }], containers: [{ image: 'nginx:2', name: 'nginx' }] } } },
  });
  const meta = out.metadata as JsonObject;
  t.is((meta.annotations as JsonObject)[LAST_APPLIED], newConfig);
  t.is((meta.annotations as JsonObject)['deployment.kubernetes.io/revision'], '1', 'server annotations survive');
  const c = firstContainer(out);
  t.is(c.image, 'nginx:2');
  t.is(c.imagePullPolicy, 'IfNotPresent', 'server defaults survive');
  t.is(c.terminationMessagePath, '/dev/termination-log');
  t.deepEqual(c.env, firstContainer(liveDeployment()).env);
  t.deepEqual(out.status, liveDeployment().status);
  t.is(meta.uid, 'u-1');
});

test('kubectl apply: an env var and a label removed from the manifest, a port added', (t) => {
  const out = apply(SMP, liveDeployment(), {
    metadata: { annotations: { [LAST_APPLIED]: '{}\n' }, labels: { team: null } },
    spec: {
      template: {
        spec: {
          '$setElementOrder/containers': [{ name: 'nginx' }],
          containers: [
            {
              '$setElementOrder/env': [{ name: 'A' }],
              '$setElementOrder/ports': [{ containerPort: 80 }, { containerPort: 8080 }],
              env: [{ $patch: 'delete', name: 'B' }],
              name: 'nginx',
              ports: [{ containerPort: 8080 }],
            },
          ],
        },
      },
    },
  });
  t.deepEqual((out.metadata as JsonObject).labels, { app: 'web' });
  const c = firstContainer(out);
  t.deepEqual(c.env, [{ name: 'A', value: '1' }]);
  t.deepEqual(c.ports, [{ containerPort: 80, protocol: 'TCP' }, { containerPort: 8080 }]);
  t.false(JSON.stringify(out).includes('$'), 'no directive reaches the stored object');
});

test('kubectl apply: a second container added before the first, then removed again', (t) => {
  const added = apply(SMP, liveDeployment(), {
    spec: {
      template: {
        spec: {
          '$setElementOrder/containers': [{ name: 'log' }, { name: 'nginx' }],
          containers: [{ image: 'fluentd', name: 'log' }],
        },
      },
    },
  });
  t.deepEqual(
    (podSpec(added).containers as JsonObject[]).map((c) => c.name),
    ['log', 'nginx'],
  );
  const removed = apply(SMP, added, {
    spec: { template: { spec: { '$setElementOrder/containers': [{ name: 'nginx' }], containers: [{ $patch: 'delete', name: 'log' }] } } },
  });
  t.deepEqual(
    (podSpec(removed).containers as JsonObject[]).map((c) => c.name),
    ['nginx'],
  );
  t.is(firstContainer(removed).imagePullPolicy, 'IfNotPresent');
});

test('kubectl apply: the order of containers changed in the manifest', (t) => {
  const two = apply(SMP, liveDeployment(), {
    spec: { template: { spec: { '$setElementOrder/containers': [{ name: 'nginx' }, { name: 'log' }], containers: [{ image: 'fluentd', name: 'log' }] } } },
  });
  const swapped = apply(SMP, two, { spec: { template: { spec: { '$setElementOrder/containers': [{ name: 'log' }, { name: 'nginx' }] } } } });
  t.deepEqual(
    (podSpec(swapped).containers as JsonObject[]).map((c) => c.name),
    ['log', 'nginx'],
  );
});

test('kubectl apply: strategy switched to Recreate ($retainKeys with a null)', (t) => {
  const out = apply(SMP, liveDeployment(), { spec: { strategy: { $retainKeys: ['type'], rollingUpdate: null, type: 'Recreate' } } });
  t.deepEqual((out.spec as JsonObject).strategy, { type: 'Recreate' });
});

test('kubectl apply: a volume source switched ($retainKeys inside a merge-list element)', (t) => {
  const out = apply(SMP, liveDeployment(), {
    spec: {
      template: {
        spec: {
          '$setElementOrder/volumes': [{ name: 'data' }],
          volumes: [{ $retainKeys: ['configMap', 'name'], configMap: { name: 'cm' }, emptyDir: null, name: 'data' }],
        },
      },
    },
  });
  t.deepEqual(podSpec(out).volumes, [{ name: 'data', configMap: { name: 'cm' } }]);
});

test('kubectl apply: args (a list without merge key) replaced', (t) => {
  const withArgs = apply(SMP, liveDeployment(), {
    spec: { template: { spec: { '$setElementOrder/containers': [{ name: 'nginx' }], containers: [{ args: ['-g', 'daemon off;'], name: 'nginx' }] } } },
  });
  const out = apply(SMP, withArgs, {
    spec: { template: { spec: { '$setElementOrder/containers': [{ name: 'nginx' }], containers: [{ args: ['-v'], name: 'nginx' }] } } },
  });
  t.deepEqual(firstContainer(out).args, ['-v']);
});

test('kubectl apply on a Service: ports merged by port', (t) => {
  const service: JsonObject = {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 's', namespace: 'default' },
    spec: { clusterIP: '10.0.0.5', ports: [{ port: 80, targetPort: 8080, protocol: 'TCP' }], selector: { app: 'web' } },
  };
  const out = apply(
    SMP,
    service,
    { spec: { '$setElementOrder/ports': [{ port: 80 }, { port: 443 }], ports: [{ port: 443, targetPort: 8443 }] } },
    'Service',
  );
  const spec = out.spec as JsonObject;
  t.deepEqual(spec.ports, [
    { port: 80, targetPort: 8080, protocol: 'TCP' },
    { port: 443, targetPort: 8443 },
  ]);
  t.is(spec.clusterIP, '10.0.0.5');
});

test('kubectl patch (strategic, the default type)', (t) => {
  const out = apply(SMP, liveDeployment(), { spec: { template: { spec: { containers: [{ name: 'nginx', image: 'nginx:3' }] } } } });
  t.is(firstContainer(out).image, 'nginx:3');
  t.is((podSpec(out).containers as JsonObject[]).length, 1);
});

test('kubectl patch --type=merge', (t) => {
  const out = apply('application/merge-patch+json', liveDeployment(), { spec: { replicas: 5 }, metadata: { labels: { team: null } } });
  t.is((out.spec as JsonObject).replicas, 5);
  t.deepEqual((out.metadata as JsonObject).labels, { app: 'web' });
});

test('kubectl patch --type=json', (t) => {
  const out = apply('application/json-patch+json', liveDeployment(), [
    { op: 'replace', path: '/spec/replicas', value: 4 },
    { op: 'add', path: '/spec/template/spec/containers/0/env/-', value: { name: 'C', value: '3' } },
  ]);
  t.is((out.spec as JsonObject).replicas, 4);
  t.deepEqual(
    (firstContainer(out).env as JsonObject[]).map((e) => e.name),
    ['A', 'B', 'C'],
  );
});

test('a /status patch: conditions merged by type on a Pod and on a Node', (t) => {
  const live: JsonObject = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p' },
    spec: { containers: [{ name: 'a', image: 'a' }] },
    status: { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'True' }] },
  };
  const out = apply(SMP, live, { status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] } }, 'Pod');
  t.deepEqual(out.status, {
    phase: 'Running',
    conditions: [
      { type: 'Ready', status: 'True' },
      { type: 'PodScheduled', status: 'True' },
    ],
  });

  const node: JsonObject = {
    kind: 'Node',
    metadata: { name: 'n' },
    status: {
      addresses: [{ type: 'InternalIP', address: '10.0.0.1' }],
      conditions: [{ type: 'Ready', status: 'False' }],
    },
  };
  const patched = apply(
    SMP,
    node,
    { status: { addresses: [{ type: 'Hostname', address: 'n' }], conditions: [{ type: 'Ready', status: 'True' }] } },
    'Node',
  );
  t.deepEqual(patched.status, {
    addresses: [
      { type: 'Hostname', address: 'n' },
      { type: 'InternalIP', address: '10.0.0.1' },
    ],
    conditions: [{ type: 'Ready', status: 'True' }],
  });
});

test('a Namespace: labels merged, spec.finalizers (no merge key) replaced', (t) => {
  const ns: JsonObject = { kind: 'Namespace', metadata: { name: 'team', labels: { a: '1' } }, spec: { finalizers: ['platform'] }, status: { phase: 'Active' } };
  const out = apply(SMP, ns, { metadata: { labels: { b: '2' } }, spec: { finalizers: [] } }, 'Namespace');
  t.deepEqual((out.metadata as JsonObject).labels, { a: '1', b: '2' });
  t.deepEqual((out.spec as JsonObject).finalizers, []);
  t.deepEqual(out.status, { phase: 'Active' });
});
