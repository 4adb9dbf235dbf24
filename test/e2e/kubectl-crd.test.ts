// The machine's kubectl (client 1.32): a CustomResourceDefinition applied from YAML, waited on
// (Established), then its objects applied, listed by plural and by short name, and deleted.
import test, { type ExecutionContext } from 'ava';
import { kubectlFor } from '../helpers/kubectl.ts';
import { startServer, type TestServer } from '../helpers/server.ts';

let s: TestServer;
let k: ReturnType<typeof kubectlFor>;
test.before(async () => {
  s = await startServer();
  k = kubectlFor(s.url);
});
test.after.always(async () => {
  await s?.close();
});

const crdYaml = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: crontabs.stable.example.com
spec:
  group: stable.example.com
  scope: Namespaced
  names:
    plural: crontabs
    singular: crontab
    kind: CronTab
    shortNames: [ct]
    categories: [all]
  versions:
  - name: v1
    served: true
    storage: true
    subresources:
      scale: {specReplicasPath: .spec.replicas, statusReplicasPath: .status.replicas}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              cronSpec: {type: string}
              image: {type: string}
              replicas: {type: integer, default: 1}
`;
const tabYaml = (image: string) => `apiVersion: stable.example.com/v1
kind: CronTab
metadata:
  name: my-new-cron-object
  namespace: default
spec:
  cronSpec: "* * * * */5"
  image: ${image}
`;

test.serial('kubectl apply -f crd.yaml, wait, apply/get/get by short name/scale/delete custom objects, delete the CRD', async (t) => {
  const applied = await k.run(['apply', '-f', k.file('crd.yaml', crdYaml)]);
  t.is(applied.code, 0, applied.stderr);
  t.regex(applied.stdout, /customresourcedefinition.apiextensions.k8s.io\/crontabs.stable.example.com created/);
  const wait = await k.run(['wait', '--for=condition=Established', '--timeout=20s', 'crd/crontabs.stable.example.com']);
  t.is(wait.code, 0, wait.stderr);
  t.regex(wait.stdout, /condition met/);

  const tab = await k.run(['apply', '-f', k.file('tab.yaml', tabYaml('my-awesome-cron-image'))]);
  t.is(tab.code, 0, tab.stderr);
  t.regex(tab.stdout, /crontab.stable.example.com\/my-new-cron-object created/);
  const again = await k.run(['apply', '-f', k.file('tab2.yaml', tabYaml('other-image'))]);
  t.is(again.code, 0, again.stderr);
  t.regex(again.stdout, /configured/);

  const list = await k.run(['get', 'crontabs', '-n', 'default']);
  t.is(list.code, 0, list.stderr);
  t.regex(list.stdout, /^NAME\s+AGE\n/);
  t.regex(list.stdout, /my-new-cron-object/);
  const short = await k.run(['get', 'ct', 'my-new-cron-object', '-n', 'default', '-o', 'jsonpath={.spec.image} {.spec.replicas}']);
  t.is(short.code, 0, short.stderr);
  t.is(short.stdout, 'other-image 1');

  const scaled = await k.run(['scale', 'ct', 'my-new-cron-object', '-n', 'default', '--replicas=3']);
  t.is(scaled.code, 0, scaled.stderr);
  t.regex(scaled.stdout, /crontab.stable.example.com\/my-new-cron-object scaled/);
  const now = await k.run(['get', 'ct', 'my-new-cron-object', '-n', 'default', '-o', 'jsonpath={.spec.replicas}']);
  t.is(now.stdout, '3');

  const all = await k.run(['get', 'all', '-n', 'default', '-o', 'name']);
  t.is(all.code, 0, all.stderr);
  t.regex(all.stdout, /^crontab.stable.example.com\/my-new-cron-object$/m);

  const del = await k.run(['delete', 'ct', 'my-new-cron-object', '-n', 'default']);
  t.is(del.code, 0, del.stderr);
  t.regex(del.stdout, /crontab.stable.example.com "my-new-cron-object" deleted/);
  const none = await k.run(['get', 'crontabs', '-n', 'default']);
  t.regex(none.stderr, /No resources found/);

  const gone = await k.run(['delete', '-f', k.file('crd2.yaml', crdYaml)]);
  t.is(gone.code, 0, gone.stderr);
  const after = await k.run(['get', 'crontabs']);
  t.not(after.code, 0);
  // kubectl's discovery cache may still name the kind: then the server answers 404 itself
  t.regex(after.stderr, /the server doesn't have a resource type "crontabs"|Unable to list "stable.example.com\/v1, Resource=crontabs": the server could not find the requested resource/);
});

/** A namespaced CRD served and stored at v1 only, `versionTail` (schema, columns) indented under that version. */
const oneVersionCrd = (group: string, plural: string, kind: string, versionTail: string) => `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: ${plural}.${group}}
spec:
  group: ${group}
  scope: Namespaced
  names: {plural: ${plural}, singular: ${kind.toLowerCase()}, kind: ${kind}}
  versions:
  - name: v1
    served: true
    storage: true
${versionTail}`;

/** kubectl apply of a CRD, then wait until it is Established. */
async function establish(t: ExecutionContext, file: string, yaml: string, name: string): Promise<void> {
  const applied = await k.run(['apply', '-f', k.file(file, yaml)]);
  t.is(applied.code, 0, applied.stderr);
  t.is((await k.run(['wait', '--for=condition=Established', '--timeout=20s', `crd/${name}`])).code, 0);
}

const widgetCrd = oneVersionCrd('shop.example.com', 'widgets', 'Widget', `    schema:
      openAPIV3Schema:
        type: object
        x-kubernetes-preserve-unknown-fields: true
    additionalPrinterColumns:
    - {name: Size, type: string, jsonPath: .spec.size}
    - {name: Replicas, type: integer, jsonPath: .spec.replicas}
    - {name: Ready, type: string, jsonPath: '.status.conditions[?(@.type=="Ready")].status'}
    - {name: Age, type: date, jsonPath: .metadata.creationTimestamp}
    - {name: Owner, type: string, priority: 1, jsonPath: ".metadata.labels['shop.example.com/owner']"}
`);

test.serial('kubectl get prints a CRD\'s additionalPrinterColumns, -o wide its priority-1 ones too', async (t) => {
  await establish(t, 'widgets.yaml', widgetCrd, 'widgets.shop.example.com');
  const widget = `apiVersion: shop.example.com/v1
kind: Widget
metadata: {name: w1, namespace: default, labels: {shop.example.com/owner: alice}}
spec: {size: large, replicas: 3}
status: {conditions: [{type: Synced, status: "True"}, {type: Ready, status: "False"}]}
`;
  const created = await k.run(['create', '-f', k.file('w1.yaml', widget)]);
  t.is(created.code, 0, created.stderr);
  const list = await k.run(['get', 'widgets', '-n', 'default']);
  t.is(list.code, 0, list.stderr);
  const [head, row] = list.stdout.trim().split('\n').map((l) => l.trim().split(/\s+/));
  t.deepEqual(head, ['NAME', 'SIZE', 'REPLICAS', 'READY', 'AGE']);
  t.deepEqual(row.slice(0, 4), ['w1', 'large', '3', 'False']);
  t.regex(row[4], /^\d+s$/);
  const wide = await k.run(['get', 'widgets', '-n', 'default', '-o', 'wide']);
  t.deepEqual(wide.stdout.trim().split('\n').map((l) => l.trim().split(/\s+/)).map((r) => [r[0], r.at(-1)]), [['NAME', 'OWNER'], ['w1', 'alice']]);

  const bad = await k.run(['apply', '-f', k.file('bad.yaml', widgetCrd.replace('widgets.shop', 'gadgets.shop').replace('plural: widgets, singular: widget, kind: Widget', 'plural: gadgets, singular: gadget, kind: Gadget').replace('.spec.size', '.spec.size.match(/(a+)+$/)'))]);
  t.not(bad.code, 0);
  t.regex(bad.stderr, /spec.versions\[0\].additionalPrinterColumns\[0\].jsonPath: Invalid value/);
});

test.serial('kubectl apply of a custom object whose strings break their schema formats prints the server\'s 422 for each field', async (t) => {
  const crd = oneVersionCrd('ops.example.com', 'backups', 'Backup', `    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              at: {type: string, format: date-time}
              every: {type: string, format: duration}
              target: {type: string, format: uri}
`);
  await establish(t, 'backups.yaml', crd, 'backups.ops.example.com');
  const backup = (at: string, every: string, target: string) => `apiVersion: ops.example.com/v1
kind: Backup
metadata: {name: nightly, namespace: default}
spec: {at: "${at}", every: "${every}", target: "${target}"}
`;
  const bad = await k.run(['apply', '-f', k.file('bad-backup.yaml', backup('tonight', 'daily', 'bucket/path'))]);
  t.not(bad.code, 0);
  t.regex(bad.stderr, /spec\.at: Invalid value: "tonight": spec\.at in body must be of type date-time: "tonight"/);
  t.regex(bad.stderr, /spec\.every: Invalid value: "daily": spec\.every in body must be of type duration: "daily"/);
  t.regex(bad.stderr, /spec\.target: Invalid value: "bucket\/path": spec\.target in body must be of type uri: "bucket\/path"/);
  const good = await k.run(['apply', '-f', k.file('backup.yaml', backup('2026-11-30T02:00:00Z', '24h', 's3://bucket/path'))]);
  t.is(good.code, 0, good.stderr);
  const got = await k.run(['get', 'backup', 'nightly', '-n', 'default', '-o', 'jsonpath={.spec.every}']);
  t.is(got.stdout, '24h');
});
