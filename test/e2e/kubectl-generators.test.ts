// kubectl 1.32's typed generators send their objects in protobuf and read the answer in protobuf:
// each creates its object against the server, which then reads back in JSON as kubectl meant it.
import test from 'ava';
import { kubectlFor } from '../helpers/kubectl.ts';
import { startServer, type TestServer } from '../helpers/server.ts';

let srv: TestServer;
let k: ReturnType<typeof kubectlFor>;
test.before(async () => {
  srv = await startServer();
  k = kubectlFor(srv.url);
  const ns = await k.run(['create', 'namespace', 'gen']);
  if (ns.code !== 0) throw new Error(`create namespace: ${ns.stderr}`);
});
test.after.always(() => srv?.close());

test('create namespace', async (t) => {
  const r = await k.run(['create', 'namespace', 'gen-two']);
  t.is(r.stderr, '');
  t.is(r.stdout, 'namespace/gen-two created\n');
  t.is((await srv.req('GET', '/api/v1/namespaces/gen-two')).json.status.phase, 'Active');
});

test('create configmap', async (t) => {
  const r = await k.run(['-n', 'gen', 'create', 'configmap', 'settings', '--from-literal=mode=fast', '--from-literal=size=3']);
  t.is(r.stdout, 'configmap/settings created\n', r.stderr);
  t.deepEqual((await srv.req('GET', '/api/v1/namespaces/gen/configmaps/settings')).json.data, { mode: 'fast', size: '3' });
});

test('create secret generic', async (t) => {
  const r = await k.run(['-n', 'gen', 'create', 'secret', 'generic', 'creds', '--from-literal=password=s3cr3t']);
  t.is(r.stdout, 'secret/creds created\n', r.stderr);
  const s = (await srv.req('GET', '/api/v1/namespaces/gen/secrets/creds')).json;
  t.is(s.type, 'Opaque');
  t.is(Buffer.from(s.data.password, 'base64').toString(), 's3cr3t');
});

test('create serviceaccount', async (t) => {
  const r = await k.run(['-n', 'gen', 'create', 'serviceaccount', 'robot']);
  t.is(r.stdout, 'serviceaccount/robot created\n', r.stderr);
  t.is((await srv.req('GET', '/api/v1/namespaces/gen/serviceaccounts/robot')).status, 200);
});

test('create service clusterip', async (t) => {
  const r = await k.run(['-n', 'gen', 'create', 'service', 'clusterip', 'web', '--tcp=80:8080']);
  t.is(r.stdout, 'service/web created\n', r.stderr);
  const svc = (await srv.req('GET', '/api/v1/namespaces/gen/services/web')).json;
  t.is(svc.spec.type, 'ClusterIP');
  t.like(svc.spec.ports[0], { name: '80-8080', port: 80, targetPort: 8080, protocol: 'TCP' });
  t.deepEqual(svc.spec.selector, { app: 'web' });
});

test('create quota', async (t) => {
  const r = await k.run(['-n', 'gen', 'create', 'quota', 'small', '--hard=pods=4,requests.cpu=2']);
  t.is(r.stdout, 'resourcequota/small created\n', r.stderr);
  t.deepEqual((await srv.req('GET', '/api/v1/namespaces/gen/resourcequotas/small')).json.spec.hard, { pods: '4', 'requests.cpu': '2' });
});

test('create job', async (t) => {
  const r = await k.run(['-n', 'gen', 'create', 'job', 'once', '--image=busybox', '--', 'echo', 'hi']);
  t.is(r.stdout, 'job.batch/once created\n', r.stderr);
  const job = (await srv.req('GET', '/apis/batch/v1/namespaces/gen/jobs/once')).json;
  t.is(job.spec.template.spec.containers[0].image, 'busybox');
  t.deepEqual(job.spec.template.spec.containers[0].command, ['echo', 'hi']);
  t.is(job.spec.template.spec.restartPolicy, 'Never');
});

test('create cronjob, then get it as a table, in YAML, and its job from it', async (t) => {
  const r = await k.run(['-n', 'gen', 'create', 'cronjob', 'tick', '--image=busybox', '--schedule=*/10 * * * *', '--', 'date']);
  t.is(r.stdout, 'cronjob.batch/tick created\n', r.stderr);
  const cj = (await srv.req('GET', '/apis/batch/v1/namespaces/gen/cronjobs/tick')).json;
  t.is(cj.spec.schedule, '*/10 * * * *');
  t.is(cj.spec.concurrencyPolicy, 'Allow');
  t.deepEqual(cj.spec.jobTemplate.spec.template.spec.containers[0].command, ['date']);
  t.is(cj.spec.jobTemplate.spec.template.spec.restartPolicy, 'OnFailure');
  const table = await k.run(['-n', 'gen', 'get', 'cronjobs', '-o', 'wide']);
  t.is(table.code, 0, table.stderr);
  t.regex(table.stdout, /^NAME\s+SCHEDULE\s+TIMEZONE\s+SUSPEND\s+ACTIVE\s+LAST SCHEDULE\s+AGE\s+CONTAINERS\s+IMAGES\s+SELECTOR\n/);
  t.regex(table.stdout, /^tick\s+\*\/10 \* \* \* \*\s+<none>\s+False\s+0\s+<none>\s+\S+\s+tick\s+busybox\s+<none>$/m);
  const yaml = await k.run(['-n', 'gen', 'get', 'cj', 'tick', '-o', 'jsonpath={.spec.successfulJobsHistoryLimit}/{.spec.failedJobsHistoryLimit}/{.spec.suspend}']);
  t.is(yaml.stdout, '3/1/false', yaml.stderr);
  const bad = await k.run(['-n', 'gen', 'create', 'cronjob', 'never', '--image=busybox', '--schedule=61 * * * *']);
  t.not(bad.code, 0);
  t.regex(bad.stderr, /spec\.schedule: Invalid value: "61 \* \* \* \*": end of range \(61\) above maximum \(59\): 61/);
  // a job from the cron job's template (kubectl reads it in protobuf, sends the job in protobuf)
  const job = await k.run(['-n', 'gen', 'create', 'job', 'tick-now', '--from=cronjob/tick']);
  t.is(job.stdout, 'job.batch/tick-now created\n', job.stderr);
  const made = (await srv.req('GET', '/apis/batch/v1/namespaces/gen/jobs/tick-now')).json;
  t.deepEqual(made.spec.template.spec.containers[0].command, ['date']);
  t.is(made.metadata.ownerReferences?.[0]?.kind, 'CronJob');
});

test('create pdb, then get it as a table', async (t) => {
  const r = await k.run(['-n', 'gen', 'create', 'pdb', 'web-budget', '--selector=app=web', '--min-available=2']);
  t.is(r.stdout, 'poddisruptionbudget.policy/web-budget created\n', r.stderr);
  const pdb = (await srv.req('GET', '/apis/policy/v1/namespaces/gen/poddisruptionbudgets/web-budget')).json;
  t.is(pdb.spec.minAvailable, 2);
  t.deepEqual(pdb.spec.selector, { matchLabels: { app: 'web' } });
  const pct = await k.run(['-n', 'gen', 'create', 'pdb', 'pct', '--selector=app=web', '--max-unavailable=50%']);
  t.is(pct.code, 0, pct.stderr);
  const table = await k.run(['-n', 'gen', 'get', 'pdb']);
  t.is(table.code, 0, table.stderr);
  t.regex(table.stdout, /^NAME\s+MIN AVAILABLE\s+MAX UNAVAILABLE\s+ALLOWED DISRUPTIONS\s+AGE\n/);
  t.regex(table.stdout, /^pct\s+N\/A\s+50%\s+0\s+\S+$/m);
  t.regex(table.stdout, /^web-budget\s+2\s+N\/A\s+0\s+\S+$/m);
  const bad = await k.run(['-n', 'gen', 'create', 'pdb', 'bad', '--selector=app=web', '--max-unavailable=150%']);
  t.not(bad.code, 0);
  t.regex(bad.stderr, /spec\.maxUnavailable: Invalid value: "150%": must not be greater than 100%/);
});

test('create priorityclass, then get it as a table', async (t) => {
  const r = await k.run(['create', 'priorityclass', 'batch-low', '--value=100', '--description=batch work', '--preemption-policy=Never']);
  t.is(r.stdout, 'priorityclass.scheduling.k8s.io/batch-low created\n', r.stderr);
  const pc = (await srv.req('GET', '/apis/scheduling.k8s.io/v1/priorityclasses/batch-low')).json;
  t.like(pc, { value: 100, description: 'batch work', preemptionPolicy: 'Never', globalDefault: false });
  const table = await k.run(['get', 'priorityclasses']);
  t.is(table.code, 0, table.stderr);
  t.regex(table.stdout, /^NAME\s+VALUE\s+GLOBAL-DEFAULT\s+AGE\s+PREEMPTIONPOLICY\n/);
  t.regex(table.stdout, /^batch-low\s+100\s+false\s+\S+\s+Never$/m);
  t.regex(table.stdout, /^system-node-critical\s+2000001000\s+false\s+/m);
  const high = await k.run(['create', 'priorityclass', 'too-high', '--value=2000000000']);
  t.not(high.code, 0);
  t.regex(high.stderr, /value: Forbidden: maximum allowed value of a user defined priority is 1000000000/);
});

test('kubectl get reads protobuf lists and objects back', async (t) => {
  const r = await k.run(['-n', 'gen', 'get', 'configmap', 'settings', '-o', 'jsonpath={.data.mode}']);
  t.is(r.stdout, 'fast', r.stderr);
});
