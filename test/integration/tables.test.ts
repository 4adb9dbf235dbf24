// Server-side tables and partial metadata through the real server: `as=Table` (meta.k8s.io v1 and
// v1beta1, meta.platform.io) with each kind's columns, includeObject, `as=PartialObjectMetadata(List)`
// for get, list and watch, the reference's fallbacks and 406s, and discovery's `all` category.
import test from 'ava';
import http from 'node:http';
import { startServer, type TestServer } from '../helpers/server.ts';

const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io';
const KUBECTL_ACCEPT = `${TABLE},application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json`;
const PODS = '/api/v1/namespaces/default/pods';

let s: TestServer;
test.before(async () => {
  s = await startServer();
  const pod = { metadata: { name: 'web-0', labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }], nodeName: 'n1' } };
  const r = await s.req('POST', PODS, pod);
  if (r.status !== 201) throw new Error(r.text);
  const svc = await s.req('POST', '/api/v1/namespaces/default/services', {
    metadata: { name: 'web' },
    spec: { type: 'NodePort', selector: { app: 'web' }, ports: [{ port: 80, nodePort: 30080 }] },
  });
  if (svc.status !== 201) throw new Error(svc.text);
});
test.after.always(() => s?.close());

const names = (cols: Array<{ name: string }>) => cols.map((c) => c.name);

test.serial('a pod list as a Table: the columns kubectl prints, wide ones at priority 1, one row with partial metadata', async (t) => {
  const r = await s.req('GET', PODS, undefined, { Accept: KUBECTL_ACCEPT });
  t.is(r.status, 200, r.text);
  t.regex(r.headers.get('content-type')!, /^application\/json/);
  t.is(r.json.kind, 'Table');
  t.is(r.json.apiVersion, 'meta.k8s.io/v1');
  t.is(typeof r.json.metadata.resourceVersion, 'string');
  t.deepEqual(names(r.json.columnDefinitions), ['Name', 'Ready', 'Status', 'Restarts', 'Age', 'IP', 'Node', 'Nominated Node', 'Readiness Gates']);
  t.deepEqual(
    r.json.columnDefinitions.map((c: { priority: number }) => c.priority),
    [0, 0, 0, 0, 0, 1, 1, 1, 1],
  );
  t.deepEqual(r.json.columnDefinitions[0], { name: 'Name', type: 'string', format: 'name', description: r.json.columnDefinitions[0].description, priority: 0 });
  t.is(r.json.rows.length, 1);
  const [row] = r.json.rows;
  t.deepEqual(row.cells.slice(0, 4), ['web-0', '0/1', 'Pending', '0']);
  t.regex(row.cells[4], /^\d+s$/);
  t.deepEqual(row.cells.slice(5), ['<none>', 'n1', '<none>', '<none>']);
  t.deepEqual(row.object.kind, 'PartialObjectMetadata');
  t.is(row.object.apiVersion, 'meta.k8s.io/v1');
  t.is(row.object.metadata.name, 'web-0');
  t.deepEqual(row.object.metadata.labels, { app: 'web' });
  t.is(row.object.spec, undefined);
});

test.serial('v1beta1 and the platform group name the Table in their own group-version', async (t) => {
  const beta = await s.req('GET', `${PODS}/web-0`, undefined, { Accept: 'application/json;as=Table;v=v1beta1;g=meta.k8s.io' });
  t.is(beta.status, 200, beta.text);
  t.is(beta.json.apiVersion, 'meta.k8s.io/v1beta1');
  t.is(beta.json.rows[0].object.apiVersion, 'meta.k8s.io/v1beta1');
  t.is(beta.json.metadata.resourceVersion, beta.json.rows[0].object.metadata.resourceVersion);
  const platform = await s.req('GET', PODS, undefined, { Accept: 'application/json;as=Table;v=v1;g=meta.platform.io' });
  t.is(platform.status, 200, platform.text);
  t.is(platform.json.apiVersion, 'meta.platform.io/v1');
});

test.serial('includeObject=Object carries the object, None nothing, anything else is a 400', async (t) => {
  const full = await s.req('GET', `${PODS}?includeObject=Object`, undefined, { Accept: TABLE });
  t.is(full.json.rows[0].object.kind, 'Pod');
  t.is(full.json.rows[0].object.apiVersion, 'v1');
  t.is(full.json.rows[0].object.spec.containers[0].image, 'nginx');
  const none = await s.req('GET', `${PODS}/web-0?includeObject=None`, undefined, { Accept: TABLE });
  t.is(none.status, 200);
  t.false('object' in none.json.rows[0]);
  const bad = await s.req('GET', `${PODS}?includeObject=All`, undefined, { Accept: TABLE });
  t.is(bad.status, 400);
  t.is(bad.json.kind, 'Status');
  t.is(bad.json.message, 'unrecognized includeObject value: "All"');
});

test.serial('services print TYPE, CLUSTER-IP, EXTERNAL-IP, PORT(S), AGE and a wide SELECTOR', async (t) => {
  const r = await s.req('GET', '/api/v1/namespaces/default/services/web', undefined, { Accept: TABLE });
  t.is(r.status, 200, r.text);
  t.deepEqual(names(r.json.columnDefinitions), ['Name', 'Type', 'Cluster-IP', 'External-IP', 'Port(s)', 'Age', 'Selector']);
  const cells = r.json.rows[0].cells;
  t.is(cells[0], 'web');
  t.is(cells[1], 'NodePort');
  t.is(cells[3], '<none>');
  t.is(cells[4], '80:30080/TCP');
  t.is(cells[6], 'app=web');
});

test.serial('deployments: READY, UP-TO-DATE, AVAILABLE, AGE; kinds without printers get NAME and CREATED AT', async (t) => {
  const dep = await s.req('POST', '/apis/extensions/v1beta1/namespaces/default/deployments', {
    metadata: { name: 'd' },
    spec: { replicas: 2, template: { metadata: { labels: { app: 'd' } }, spec: { containers: [{ name: 'a', image: 'img:1' }, { name: 'b', image: 'img:2' }] } } },
  });
  t.is(dep.status, 201, dep.text);
  const r = await s.req('GET', '/apis/extensions/v1beta1/namespaces/default/deployments', undefined, { Accept: TABLE });
  t.deepEqual(names(r.json.columnDefinitions), ['Name', 'Ready', 'Up-to-date', 'Available', 'Age', 'Containers', 'Images', 'Selector']);
  t.deepEqual(r.json.rows[0].cells.slice(0, 4), ['d', '0/2', 0, 0]);
  t.deepEqual(r.json.rows[0].cells.slice(5), ['a,b', 'img:1,img:2', 'app=d']);

  const lr = await s.req('POST', '/api/v1/namespaces/default/limitranges', { metadata: { name: 'lr' }, spec: { limits: [] } });
  t.is(lr.status, 201, lr.text);
  const table = await s.req('GET', '/api/v1/namespaces/default/limitranges', undefined, { Accept: TABLE });
  t.deepEqual(table.json.columnDefinitions, [
    { name: 'Name', type: 'string', format: 'name', description: table.json.columnDefinitions[0].description, priority: 0 },
    { name: 'Created At', type: 'date', format: '', description: table.json.columnDefinitions[1].description, priority: 0 },
  ]);
  t.deepEqual(table.json.rows[0].cells, ['lr', lr.json.metadata.creationTimestamp]);
});

test.serial('PartialObjectMetadata for get, PartialObjectMetadataList for list, v1 and v1beta1', async (t) => {
  const one = await s.req('GET', `${PODS}/web-0`, undefined, { Accept: 'application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io' });
  t.is(one.status, 200, one.text);
  t.deepEqual(Object.keys(one.json).sort(), ['apiVersion', 'kind', 'metadata']);
  t.is(one.json.kind, 'PartialObjectMetadata');
  t.is(one.json.metadata.name, 'web-0');
  const list = await s.req('GET', PODS, undefined, { Accept: 'application/json;as=PartialObjectMetadataList;v=v1beta1;g=meta.k8s.io' });
  t.is(list.status, 200, list.text);
  t.is(list.json.kind, 'PartialObjectMetadataList');
  t.is(list.json.apiVersion, 'meta.k8s.io/v1beta1');
  t.is(typeof list.json.metadata.resourceVersion, 'string');
  t.deepEqual(list.json.items.map((i: { kind: string; metadata: { name: string } }) => [i.kind, i.metadata.name]), [['PartialObjectMetadata', 'web-0']]);
  t.is(list.json.items[0].spec, undefined);
});

test.serial('the wrong partial kind for the body is a 406 with the reference message; unknown conversions fall back or 406', async (t) => {
  const listAsOne = await s.req('GET', PODS, undefined, { Accept: 'application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io' });
  t.is(listAsOne.status, 406);
  t.is(listAsOne.json.reason, 'NotAcceptable');
  t.regex(listAsOne.json.message, /^you requested PartialObjectMetadata, but the requested object is a list/);
  const oneAsList = await s.req('GET', `${PODS}/web-0`, undefined, { Accept: 'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io' });
  t.is(oneAsList.status, 406);
  t.regex(oneAsList.json.message, /^you requested PartialObjectMetadataList, but the requested object is not a list/);
  // a conversion this server does not make, alone: 406; with plain JSON after it: JSON
  const unknown = await s.req('GET', PODS, undefined, { Accept: 'application/json;as=Other;v=v1;g=meta.k8s.io' });
  t.is(unknown.status, 406);
  t.is(unknown.json.message, 'only the following media types are accepted: application/json, application/yaml, application/vnd.platform.protobuf');
  const fallback = await s.req('GET', PODS, undefined, { Accept: 'application/json;as=Table;v=v2;g=meta.k8s.io,application/json' });
  t.is(fallback.status, 200);
  t.is(fallback.json.kind, 'PodList');
  // no Table of a subresource without printers: kubectl's list falls back to the object
  const scale = await s.req('GET', '/apis/extensions/v1beta1/namespaces/default/deployments/d/scale', undefined, { Accept: KUBECTL_ACCEPT });
  t.is(scale.status, 200, scale.text);
  t.is(scale.json.kind, 'Scale');
  // a Status body passes through unchanged
  const missing = await s.req('GET', `${PODS}/nope`, undefined, { Accept: TABLE });
  t.is(missing.status, 404);
  t.is(missing.json.kind, 'Status');
  // YAML tables too, as in the reference
  const yaml = await s.req('GET', PODS, undefined, { Accept: 'application/yaml;as=Table;v=v1;g=meta.k8s.io' });
  t.is(yaml.status, 200);
  t.regex(yaml.text, /^kind: Table$/m);
});

/** Read `n` JSON lines of a watch stream, then close it. */
function watchLines(url: string, accept: string, n: number): Promise<Array<{ type: string; object: Record<string, unknown> }>> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers: { Accept: accept } }, (res) => {
      let buf = '';
      const out: Array<{ type: string; object: Record<string, unknown> }> = [];
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buf += chunk;
        let i: number;
        while ((i = buf.indexOf('\n')) >= 0) {
          const line = buf.slice(0, i);
          buf = buf.slice(i + 1);
          if (line.trim()) out.push(JSON.parse(line));
          if (out.length === n) {
            req.destroy();
            resolve(out);
            return;
          }
        }
      });
      res.on('error', reject);
    });
    req.on('error', (e) => (e.message === 'socket hang up' ? undefined : reject(e)));
    setTimeout(() => reject(new Error('watch timed out')), 10_000).unref();
  });
}

test.serial('a Table watch: each event one row, column definitions on the first event only, for every watcher', async (t) => {
  const url = `${s.url}${PODS}?watch=true&resourceVersion=0`;
  const accept = `${TABLE},application/json`;
  const first = watchLines(url, accept, 3);
  await new Promise((r) => setTimeout(r, 200));
  await s.req('POST', PODS, { metadata: { name: 'web-1' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });
  await s.req('POST', PODS, { metadata: { name: 'web-2' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });
  const events = await first;
  t.deepEqual(events.map((e) => e.type), ['ADDED', 'ADDED', 'ADDED']);
  for (const e of events) {
    t.is(e.object.kind, 'Table');
    t.is((e.object.rows as unknown[]).length, 1);
  }
  t.is((events[0].object.columnDefinitions as unknown[]).length, 9);
  t.is(events[1].object.columnDefinitions, null);
  t.is(events[2].object.columnDefinitions, null);
  // a second watcher from the same revision gets its own first event with headers
  const second = await watchLines(url, accept, 2);
  t.is((second[0].object.columnDefinitions as unknown[]).length, 9);
  t.is(second[1].object.columnDefinitions, null);
  t.deepEqual(((second[1].object.rows as Array<{ cells: unknown[] }>)[0].cells as unknown[])[0], 'web-1');
});

test.serial('a PartialObjectMetadata watch carries metadata only', async (t) => {
  const events = await watchLines(`${s.url}${PODS}?watch=true&resourceVersion=0`, 'application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io', 1);
  t.is(events[0].object.kind, 'PartialObjectMetadata');
  t.deepEqual(Object.keys(events[0].object).sort(), ['apiVersion', 'kind', 'metadata']);
});

test.serial('discovery puts the workload kinds in the category all, once each', async (t) => {
  const core = await s.req('GET', '/api/v1');
  const cat = (list: { resources: Array<{ name: string; categories?: string[] }> }) =>
    list.resources.filter((r) => r.categories?.includes('all')).map((r) => r.name).sort();
  t.deepEqual(cat(core.json), ['pods', 'replicationcontrollers', 'services']);
  // a kind served by two groups is in the category in one, the group clients prefer: listed once
  t.deepEqual(cat((await s.req('GET', '/apis/apps/v1')).json), ['daemonsets', 'deployments', 'replicasets']);
  t.deepEqual(cat((await s.req('GET', '/apis/extensions/v1beta1')).json), []);
  t.deepEqual(cat((await s.req('GET', '/apis/batch/v1')).json), ['cronjobs', 'jobs']);
  t.deepEqual(cat((await s.req('GET', '/apis/autoscaling/v1')).json), ['horizontalpodautoscalers']);
});
