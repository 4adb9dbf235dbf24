import test from 'ava';
import YAML from 'yaml';
import { startServer, type TestServer } from '../helpers/server.ts';
import { kubectlFor } from '../helpers/kubectl.ts';

// The machines' kubectl (client 1.32) against a running server: discovery, OpenAPI-backed validation,
// create -f, get -o yaml, patch in the three types, apply twice, delete.

let srv: TestServer;
let k: ReturnType<typeof kubectlFor>;
test.before(async () => {
  srv = await startServer();
  k = kubectlFor(srv.url);
});
test.after.always(() => srv?.close());

const configMap = `apiVersion: v1
kind: ConfigMap
metadata:
  name: demo
data:
  greeting: hello
`;
const pod = `apiVersion: v1
kind: Pod
metadata:
  name: web
  labels: {app: web, tier: front}
spec:
  containers:
  - name: nginx
    image: nginx:1.11
  - name: sidecar
    image: busybox
`;
const deployment = (replicas: number, image: string) => `apiVersion: extensions/v1beta1
kind: Deployment
metadata:
  name: web
spec:
  replicas: ${replicas}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: nginx
        image: ${image}
        env:
        - {name: MODE, value: prod}
        - {name: DEBUG, value: "0"}
`;

test.serial('get namespaces by plural, kind and short name', async (t) => {
  for (const name of ['namespaces', 'namespace', 'ns']) {
    const r = await k.run(['get', name, '-o', 'name']);
    t.is(r.code, 0, r.stderr);
    t.true(r.stdout.includes('namespace/default'), r.stdout);
    t.true(r.stdout.includes('namespace/platform-system'));
  }
});

// kinds served by the spec's extensions group and an ecosystem group: the short name reaches the
// ecosystem group's resource, with no "could also match lower priority resource" warning
test.serial('short names of kinds served by two groups resolve once, without a warning', async (t) => {
  for (const [short, resource] of [['deploy', 'deployments.apps'], ['rs', 'replicasets.apps'], ['ds', 'daemonsets.apps'], ['hpa', 'horizontalpodautoscalers.autoscaling'], ['ing', 'ingresses.networking.k8s.io'], ['netpol', 'networkpolicies.networking.k8s.io']]) {
    const r = await k.run(['get', short, '-A', '-v=6']);
    t.is(r.code, 0, r.stderr);
    t.false(r.stderr.includes('could also match'), `${short}: ${r.stderr}`);
    const [plural, ...group] = resource.split('.');
    t.regex(r.stderr, new RegExp(`GET https?://\\S+/apis/${group.join('\\.')}/v1/${plural}\\?`), short);
  }
});

test.serial('create -f with validation, get -o yaml and delete: ConfigMap, Pod, extensions Deployment', async (t) => {
  for (const [file, content, kind, name] of [
    ['cm.yaml', configMap, 'configmap', 'demo'],
    ['pod.yaml', pod, 'pod', 'web'],
    ['deploy.yaml', deployment(2, 'nginx:1.11'), 'deployment.extensions', 'web'],
  ] as const) {
    const created = await k.run(['create', '--validate=true', '-f', k.file(file, content)]);
    t.is(created.code, 0, created.stderr);
    t.regex(created.stdout, new RegExp(`${kind.split('.')[0]}.* created`));
    const got = await k.run(['get', kind, name, '-o', 'yaml']);
    t.is(got.code, 0, got.stderr);
    const obj = YAML.parse(got.stdout);
    t.is(obj.metadata.name, name);
    t.truthy(obj.metadata.uid);
    t.truthy(obj.metadata.resourceVersion);
  }
  const short = await k.run(['get', 'po', 'web', '-o', 'jsonpath={.spec.containers[1].name}']);
  t.is(short.stdout, 'sidecar');
  const dup = await k.run(['create', '-f', k.file('cm2.yaml', configMap)]);
  t.not(dup.code, 0);
  t.regex(dup.stderr, /AlreadyExists|already exists/);
  const invalid = await k.run(['create', '-f', k.file('bad.yaml', 'apiVersion: v1\nkind: Pod\nmetadata: {name: bad}\nspec: {containers: []}\n')]);
  t.not(invalid.code, 0);
  t.regex(invalid.stderr, /is invalid/);
  for (const [kind, name] of [['configmap', 'demo'], ['deployment.extensions', 'web']]) {
    const del = await k.run(['delete', kind, name]);
    t.is(del.code, 0, del.stderr);
    t.is((await k.run(['get', kind, name])).code, 1);
  }
});

test.serial('kubectl patch --type=strategic|merge|json', async (t) => {
  const strategic = await k.run(['patch', 'pod', 'web', '--type=strategic', '-p', '{"metadata":{"labels":{"tier":null,"patched":"yes"}},"spec":{"containers":[{"name":"sidecar","image":"busybox:1.25"}]}}']);
  t.is(strategic.code, 0, strategic.stderr);
  const merge = await k.run(['patch', 'pod', 'web', '--type=merge', '-p', '{"metadata":{"annotations":{"note":"merged"}}}']);
  t.is(merge.code, 0, merge.stderr);
  const json = await k.run(['patch', 'pod', 'web', '--type=json', '-p', '[{"op":"replace","path":"/spec/containers/0/image","value":"nginx:1.12"}]']);
  t.is(json.code, 0, json.stderr);
  const obj = JSON.parse((await k.run(['get', 'pod', 'web', '-o', 'json'])).stdout);
  t.deepEqual(obj.metadata.labels, { app: 'web', patched: 'yes' });
  t.is(obj.metadata.annotations.note, 'merged');
  t.deepEqual(obj.spec.containers.map((c: { name: string; image: string }) => `${c.name}=${c.image}`), ['nginx=nginx:1.12', 'sidecar=busybox:1.25']);
  const failing = await k.run(['patch', 'pod', 'web', '--type=json', '-p', '[{"op":"test","path":"/metadata/name","value":"other"}]']);
  t.not(failing.code, 0);
});

test.serial('kubectl apply twice with a change in between', async (t) => {
  const first = await k.run(['apply', '-f', k.file('apply.yaml', deployment(2, 'nginx:1.11'))]);
  t.is(first.code, 0, first.stderr);
  t.regex(first.stdout, /created/);
  const changed = deployment(3, 'nginx:1.12').replace('        - {name: DEBUG, value: "0"}\n', '');
  const second = await k.run(['apply', '-f', k.file('apply.yaml', changed)]);
  t.is(second.code, 0, second.stderr);
  t.regex(second.stdout, /configured/);
  const obj = JSON.parse((await k.run(['get', 'deployment.extensions', 'web', '-o', 'json'])).stdout);
  t.is(obj.spec.replicas, 3);
  t.is(obj.spec.template.spec.containers[0].image, 'nginx:1.12');
  t.deepEqual(obj.spec.template.spec.containers[0].env, [{ name: 'MODE', value: 'prod' }], 'the removed env entry is gone');
  t.is(obj.metadata.generation, 2);
  t.truthy(obj.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']);
  const third = await k.run(['apply', '-f', k.file('apply.yaml', changed)]);
  t.is(third.code, 0);
  t.regex(third.stdout, /unchanged/);
});

test.serial('unknown fields past client-side validation are dropped: silently with --validate=false, with warnings kubectl prints with --validate=warn', async (t) => {
  const manifest = (name: string) => `apiVersion: v1
kind: ConfigMap
metadata:
  name: ${name}
  bogus: 1
data: {x: "1"}
extra: true
`;
  // --validate=false sends fieldValidation=Ignore
  const ignored = await k.run(['apply', '--validate=false', '-f', k.file('loose.yaml', manifest('loose'))]);
  t.is(ignored.code, 0, ignored.stderr);
  t.notRegex(ignored.stderr, /unknown field/);
  // --validate=warn sends fieldValidation=Warn: the server names each dropped field
  const warned = await k.run(['apply', '--validate=warn', '-f', k.file('warned.yaml', manifest('warned'))]);
  t.is(warned.code, 0, warned.stderr);
  t.regex(warned.stderr, /^Warning: unknown field "extra"$/m);
  t.regex(warned.stderr, /^Warning: unknown field "metadata.bogus"$/m);
  for (const name of ['loose', 'warned']) {
    const obj = JSON.parse((await k.run(['get', 'configmap', name, '-o', 'json'])).stdout);
    t.false('extra' in obj, name);
    t.false('bogus' in obj.metadata, name);
    t.deepEqual(obj.data, { x: '1' }, name);
  }
  // by default kubectl's own validation refuses them first
  const strict = await k.run(['apply', '-f', k.file('strict.yaml', manifest('strict'))]);
  t.not(strict.code, 0);
  t.regex(strict.stderr, /unknown field "extra"/);
});
