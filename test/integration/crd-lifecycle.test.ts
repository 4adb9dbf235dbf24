import test from 'ava';
import { startServer, type TestServer } from '../helpers/server.ts';

let s: TestServer;
test.before(async () => {
  s = await startServer();
});
test.after.always(async () => {
  await s?.close();
});

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const crd = (over: Record<string, unknown> = {}) => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'crontabs.stable.example.com' },
  spec: {
    group: 'stable.example.com',
    scope: 'Namespaced',
    names: { plural: 'crontabs', singular: 'crontab', kind: 'CronTab', shortNames: ['ct'], categories: ['all'] },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                properties: { cronSpec: { type: 'string', pattern: '^(\\S+ ){4}\\S+$' }, image: { type: 'string' }, replicas: { type: 'integer', minimum: 1, default: 1 } },
                required: ['cronSpec'],
              },
              status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
            },
          },
        },
      },
    ],
    ...over,
  },
});

const BASE = '/apis/stable.example.com/v1/namespaces/default/crontabs';
const tab = (name: string, spec: Record<string, unknown>, labels: Record<string, string> = {}) => ({ apiVersion: 'stable.example.com/v1', kind: 'CronTab', metadata: { name, labels }, spec });

test.serial('bad CRDs are refused with 422 and serve nothing', async (t) => {
  const badSchema = crd({ versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'no-such-type' } } } } }] });
  const r = await s.req('POST', CRDS, badSchema);
  t.is(r.status, 422, r.text);
  t.is(r.json.kind, 'Status');
  t.is(r.json.reason, 'Invalid');
  t.deepEqual(r.json.details.causes, [{
    reason: 'FieldValueNotSupported',
    field: 'spec.versions[0].schema.openAPIV3Schema.properties[spec].type',
    message: 'Unsupported value: "no-such-type": supported values: "array", "boolean", "integer", "number", "object", "string"',
  }]);
  const wrongName = await s.req('POST', CRDS, { ...crd(), metadata: { name: 'wrong.stable.example.com' } });
  t.is(wrongName.status, 422);
  const twoStorage = await s.req('POST', CRDS, crd({ versions: [{ name: 'v1', served: true, storage: true }, { name: 'v2', served: true, storage: true }] }));
  t.is(twoStorage.status, 422);
  const badScope = await s.req('POST', CRDS, crd({ scope: 'Galaxy' }));
  t.is(badScope.status, 422);
  // the reference refuses uniqueItems: checking it compares every pair of items
  const unique = await s.req('POST', CRDS, crd({ versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { xs: { type: 'array', uniqueItems: true } } } } } } }] }));
  t.is(unique.status, 422, unique.text);
  t.deepEqual(unique.json.details.causes, [{ reason: 'FieldValueForbidden', field: 'spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[xs].uniqueItems', message: 'Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic' }]);
  t.is((await s.req('GET', BASE)).status, 404);
});

test.serial('CRD create → discovery → CRUD, selectors, watch, status, validation, pruning and defaults → delete', async (t) => {
  const created = await s.req('POST', CRDS, crd());
  t.is(created.status, 201, created.text);
  const conds = created.json.status.conditions.map((c: { type: string; status: string }) => `${c.type}=${c.status}`);
  t.deepEqual(conds.sort(), ['Established=True', 'NamesAccepted=True']);
  t.is(created.json.status.acceptedNames.kind, 'CronTab');
  const moved = await s.req('PUT', `${CRDS}/crontabs.stable.example.com`, { ...created.json, spec: { ...created.json.spec, scope: 'Cluster' } });
  t.is(moved.status, 422);
  t.deepEqual(moved.json.details.causes.map((c: { field: string }) => c.field), ['spec.scope']);

  const apis = await s.req('GET', '/apis');
  const g = apis.json.groups.find((x: { name: string }) => x.name === 'stable.example.com');
  t.deepEqual(g?.versions.map((v: { groupVersion: string }) => v.groupVersion), ['stable.example.com/v1']);
  const rl = await s.req('GET', '/apis/stable.example.com/v1');
  const row = rl.json.resources.find((r: { name: string }) => r.name === 'crontabs');
  t.like(row, { kind: 'CronTab', namespaced: true, singularName: 'crontab', shortNames: ['ct'], categories: ['all'] });
  t.truthy(rl.json.resources.find((r: { name: string }) => r.name === 'crontabs/status'));

  const ac = new AbortController();
  const watch = await fetch(`${s.url}${BASE}?watch=true`, { signal: ac.signal });
  t.is(watch.status, 200);

  // pruning of unknown fields, defaults from the schema
  const c1 = await s.req('POST', BASE, tab('one', { cronSpec: '* * * * */5', image: 'img', bogus: 1 }, { app: 'a' }));
  t.is(c1.status, 201, c1.text);
  t.deepEqual(c1.json.spec, { cronSpec: '* * * * */5', image: 'img', replicas: 1 });
  t.is(c1.json.kind, 'CronTab');
  t.is(c1.json.apiVersion, 'stable.example.com/v1');
  const got = await s.req('GET', `${BASE}/one`);
  t.false('bogus' in got.json.spec);

  // bad objects: 422 Status naming the field
  const bad = await s.req('POST', BASE, tab('two', { cronSpec: 'nope', replicas: 0 }));
  t.is(bad.status, 422, bad.text);
  t.is(bad.json.kind, 'Status');
  t.deepEqual(bad.json.details.causes.map((c: { field: string }) => c.field).sort(), ['spec.cronSpec', 'spec.replicas']);
  const missing = await s.req('POST', BASE, tab('three', { image: 'x' }));
  t.is(missing.status, 422);
  t.true(missing.json.details.causes.some((c: { field: string; reason: string }) => c.field === 'spec.cronSpec' && c.reason === 'FieldValueRequired'));

  t.is((await s.req('POST', BASE, tab('four', { cronSpec: '1 2 3 4 5' }, { app: 'b' }))).status, 201);
  const sel = await s.req('GET', `${BASE}?labelSelector=app%3Db`);
  t.is(sel.json.kind, 'CronTabList');
  t.deepEqual(sel.json.items.map((o: { metadata: { name: string } }) => o.metadata.name), ['four']);
  const fsel = await s.req('GET', `${BASE}?fieldSelector=metadata.name%3Done`);
  t.deepEqual(fsel.json.items.map((o: { metadata: { name: string } }) => o.metadata.name), ['one']);

  // update, merge patch, status subresource
  const upd = await s.req('PUT', `${BASE}/one`, { ...got.json, spec: { ...got.json.spec, image: 'img2' }, status: { ignored: true } });
  t.is(upd.status, 200, upd.text);
  t.is(upd.json.spec.image, 'img2');
  t.is(upd.json.status, undefined);
  const st = await s.req('PUT', `${BASE}/one/status`, { ...upd.json, status: { lastRun: 'now' } });
  t.is(st.status, 200, st.text);
  t.deepEqual(st.json.status, { lastRun: 'now' });
  const patched = await s.req('PATCH', `${BASE}/one`, { spec: { replicas: 3 } }, { 'content-type': 'application/merge-patch+json' });
  t.is(patched.status, 200, patched.text);
  t.is(patched.json.spec.replicas, 3);
  const badPatch = await s.req('PATCH', `${BASE}/one`, { spec: { replicas: 'many' } }, { 'content-type': 'application/merge-patch+json' });
  t.is(badPatch.status, 422);

  const reader = watch.body!.getReader();
  let text = '';
  while (text.split('\n').filter(Boolean).length < 2) text += new TextDecoder().decode((await reader.read()).value);
  const events = text.split('\n').filter(Boolean).map((l) => JSON.parse(l));
  t.deepEqual(events.slice(0, 2).map((e) => [e.type, e.object.metadata.name]), [['ADDED', 'one'], ['ADDED', 'four']]);
  await reader.cancel();
  ac.abort();

  const del = await s.req('DELETE', `${CRDS}/crontabs.stable.example.com`);
  t.is(del.status, 200, del.text);
  t.is((await s.req('GET', BASE)).status, 404);
  t.is((await s.req('GET', '/apis/stable.example.com/v1')).status, 404);
  t.false((await s.req('GET', '/apis')).json.groups.some((x: { name: string }) => x.name === 'stable.example.com'));
  // objects are gone: a new definition of the same kind starts empty
  // made again at once: the old objects still go (in the background), a new one stays
  t.is((await s.req('POST', CRDS, crd())).status, 201);
  t.is((await s.req('POST', BASE, tab('fresh', { cronSpec: '1 1 1 1 1' }))).status, 201);
  let names: string[] = [];
  for (let i = 0; i < 80; i++) {
    names = (await s.req('GET', BASE)).json.items.map((o: { metadata: { name: string } }) => o.metadata.name);
    if (names.length === 1) break;
    await new Promise((r) => setTimeout(r, 25));
  }
  t.deepEqual(names, ['fresh']);
  t.is((await s.req('DELETE', `${CRDS}/crontabs.stable.example.com`)).status, 200);
});

test.serial('v1beta1 CRDs with spec.version and spec.validation serve the kind', async (t) => {
  const body = {
    apiVersion: 'apiextensions.k8s.io/v1beta1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'gizmos.beta.example.com' },
    spec: { group: 'beta.example.com', version: 'v1alpha1', scope: 'Cluster', names: { plural: 'gizmos', kind: 'Gizmo' }, validation: { openAPIV3Schema: { type: 'object', properties: { size: { type: 'integer' } } } } },
  };
  const r = await s.req('POST', '/apis/apiextensions.k8s.io/v1beta1/customresourcedefinitions', body);
  t.is(r.status, 201, r.text);
  const g = await s.req('POST', '/apis/beta.example.com/v1alpha1/gizmos', { apiVersion: 'beta.example.com/v1alpha1', kind: 'Gizmo', metadata: { name: 'g' }, size: 2, extra: true });
  t.is(g.status, 201, g.text);
  t.is(g.json.size, 2);
  t.false('extra' in g.json);
  t.is((await s.req('POST', '/apis/beta.example.com/v1alpha1/gizmos', { apiVersion: 'beta.example.com/v1alpha1', kind: 'Gizmo', metadata: { name: 'h' }, size: 'x' })).status, 422);
  t.is((await s.req('DELETE', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gizmos.beta.example.com')).status, 200);
  t.is((await s.req('GET', '/apis/beta.example.com/v1alpha1/gizmos')).status, 404);
});

test.serial('printer columns: a v1beta1 CRD\'s top-level additionalPrinterColumns fill its Table; a bad column is a 422', async (t) => {
  const body = {
    apiVersion: 'apiextensions.k8s.io/v1beta1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'dials.beta.example.com' },
    spec: {
      group: 'beta.example.com', version: 'v1', scope: 'Namespaced', names: { plural: 'dials', kind: 'Dial' },
      additionalPrinterColumns: [{ name: 'Level', type: 'integer', jsonPath: '.spec.level', description: 'How far it is turned.' }, { name: 'Colour', type: 'string', jsonPath: '.spec.colour', priority: 1 }],
    },
  };
  const r = await s.req('POST', '/apis/apiextensions.k8s.io/v1beta1/customresourcedefinitions', body);
  t.is(r.status, 201, r.text);
  t.is((await s.req('POST', '/apis/beta.example.com/v1/namespaces/default/dials', { apiVersion: 'beta.example.com/v1', kind: 'Dial', metadata: { name: 'd' }, spec: { level: 11, colour: 'red' } })).status, 201);
  const table = await s.req('GET', '/apis/beta.example.com/v1/namespaces/default/dials', undefined, { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' });
  t.is(table.status, 200, table.text);
  t.is(table.json.kind, 'Table');
  t.deepEqual(table.json.columnDefinitions, [
    { name: 'Name', type: 'string', format: 'name', description: 'The name of the object, unique within its namespace.', priority: 0 },
    { name: 'Level', type: 'integer', format: '', description: 'How far it is turned.', priority: 0 },
    { name: 'Colour', type: 'string', format: '', description: '', priority: 1 },
  ]);
  t.deepEqual(table.json.rows.map((row: { cells: unknown[] }) => row.cells), [['d', 11, 'red']]);
  t.is((await s.req('DELETE', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/dials.beta.example.com')).status, 200);

  const bad = await s.req('POST', CRDS, crd({ versions: [{ ...crd().spec.versions[0], additionalPrinterColumns: [{ name: 'X', type: 'string', jsonPath: '.spec.image.match(/(a+)+$/)' }, { name: 'Y', type: 'colour', jsonPath: '.spec.image' }] }] }));
  t.is(bad.status, 422, bad.text);
  t.deepEqual(bad.json.details.causes.map((c: { reason: string; field: string }) => `${c.reason} ${c.field}`), [
    'FieldValueInvalid spec.versions[0].additionalPrinterColumns[0].jsonPath',
    'FieldValueNotSupported spec.versions[0].additionalPrinterColumns[1].type',
  ]);
  t.is((await s.req('GET', `${CRDS}/crontabs.stable.example.com`)).status, 404);
});

test.serial('a CRD whose names are already served reports NamesAccepted=False and serves nothing new', async (t) => {
  const tpr = { apiVersion: 'extensions/v1beta1', kind: 'ThirdPartyResource', metadata: { name: 'cron-tab.stable.example.com' }, versions: [{ name: 'v1' }] };
  t.is((await s.req('POST', '/apis/extensions/v1beta1/thirdpartyresources', tpr)).status, 201);
  t.is((await s.req('POST', CRDS, crd())).status, 201);
  let conds: Array<{ type: string; status: string; reason: string }> = [];
  for (let i = 0; i < 40; i++) {
    conds = (await s.req('GET', `${CRDS}/crontabs.stable.example.com`)).json.status.conditions;
    if (conds.some((c) => c.status === 'False')) break;
    await new Promise((r) => setTimeout(r, 25));
  }
  t.deepEqual(conds.map((c) => `${c.type}=${c.status}/${c.reason}`).sort(), ['Established=False/NotAccepted', 'NamesAccepted=False/NameConflict']);
  // the TPR's kind is still the one served: no schema, nothing pruned
  const o = await s.req('POST', BASE, { apiVersion: 'stable.example.com/v1', kind: 'CronTab', metadata: { name: 'x' }, spec: { anything: true } });
  t.is(o.status, 201, o.text);
  t.deepEqual(o.json.spec, { anything: true });
  t.is((await s.req('DELETE', `${CRDS}/crontabs.stable.example.com`)).status, 200);
  t.is((await s.req('GET', BASE)).status, 200); // deleting the refused CRD leaves the TPR's kind
  t.is((await s.req('DELETE', '/apis/extensions/v1beta1/thirdpartyresources/cron-tab.stable.example.com')).status, 200);
});

test.serial('a custom kind named like a built-in virtual kind is stored, not answered by the built-in handler', async (t) => {
  const body = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'tokenreviews.sneaky.example.com' }, spec: { group: 'sneaky.example.com', scope: 'Cluster', names: { plural: 'tokenreviews', kind: 'TokenReview' }, versions: [{ name: 'v1', served: true, storage: true }] } };
  t.is((await s.req('POST', CRDS, body)).status, 201);
  const c = await s.req('POST', '/apis/sneaky.example.com/v1/tokenreviews', { apiVersion: 'sneaky.example.com/v1', kind: 'TokenReview', metadata: { name: 'tr' }, spec: { token: 'x' } });
  t.is(c.status, 201, c.text);
  t.is(c.json.status, undefined);
  t.is((await s.req('GET', '/apis/sneaky.example.com/v1/tokenreviews/tr')).json.spec.token, 'x');
  t.is((await s.req('DELETE', `${CRDS}/tokenreviews.sneaky.example.com`)).status, 200);
});

test.serial('the scale subresource reads and writes the replicas at the CRD paths', async (t) => {
  const body = crd({
    versions: [{ name: 'v1', served: true, storage: true, subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' } }, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
  });
  t.is((await s.req('POST', CRDS, body)).status, 201);
  const rl = await s.req('GET', '/apis/stable.example.com/v1');
  t.like(rl.json.resources.find((r: { name: string }) => r.name === 'crontabs/scale'), { kind: 'Scale', group: 'autoscaling', version: 'v1' });
  t.is((await s.req('POST', BASE, tab('sc', { replicas: 2 }))).status, 201);
  await s.req('PUT', `${BASE}/sc/status`, { ...(await s.req('GET', `${BASE}/sc`)).json, status: { replicas: 2, selector: 'app=sc' } });
  const got = await s.req('GET', `${BASE}/sc/scale`);
  t.is(got.status, 200, got.text);
  t.like(got.json, { kind: 'Scale', apiVersion: 'autoscaling/v1', spec: { replicas: 2 }, status: { replicas: 2, selector: 'app=sc' } });
  const put = await s.req('PUT', `${BASE}/sc/scale`, { ...got.json, spec: { replicas: 5 } });
  t.is(put.status, 200, put.text);
  t.is(put.json.spec.replicas, 5);
  t.is((await s.req('GET', `${BASE}/sc`)).json.spec.replicas, 5);
  const stale = await s.req('PUT', `${BASE}/sc/scale`, { ...got.json, spec: { replicas: 6 } });
  t.is(stale.status, 409);
  const patched = await s.req('PATCH', `${BASE}/sc/scale`, { spec: { replicas: 1 } }, { 'content-type': 'application/merge-patch+json' });
  t.is(patched.status, 200, patched.text);
  t.is((await s.req('GET', `${BASE}/sc`)).json.spec.replicas, 1);
  // a patch body past the nesting limit is refused before it is parsed (3 MB of it held the loop)
  let deep: unknown[] = [];
  for (let i = 0; i < 2000; i++) deep = [deep];
  const tooDeep = await s.req('PATCH', `${BASE}/sc/scale`, { spec: { replicas: 3 }, x: deep }, { 'content-type': 'application/merge-patch+json' });
  t.is(tooDeep.status, 400, tooDeep.text);
  t.regex(tooDeep.json.message, /nesting depth exceeds the limit of 100/);
  t.is((await s.req('GET', `${BASE}/sc`)).json.spec.replicas, 1);
  const bad = await s.req('PUT', `${BASE}/sc/scale`, { spec: { replicas: -1 } });
  t.is(bad.status, 422);
  t.is(bad.json.kind, 'Status');
  t.is((await s.req('GET', `${BASE}/nope/scale`)).status, 404);
  t.is((await s.req('DELETE', `${CRDS}/crontabs.stable.example.com`)).status, 200);
});

test.serial('string formats: a value its format refuses is a 422 naming the field, on create and on patch; unknown formats check nothing', async (t) => {
  const formats = {
    apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'leases.fmt.example.com' },
    spec: {
      group: 'fmt.example.com', scope: 'Namespaced', names: { plural: 'leases', singular: 'lease', kind: 'Lease' },
      versions: [{
        name: 'v1', served: true, storage: true,
        schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: {
          renewAt: { type: 'string', format: 'date-time' },
          ttl: { type: 'string', format: 'duration' },
          endpoint: { type: 'string', format: 'uri' },
          owner: { type: 'string', format: 'email' },
          nets: { type: 'array', items: { type: 'string', format: 'cidr' } },
          id: { type: 'string', format: 'uuid' },
          code: { type: 'string', format: 'k8s-short-name' },
        } } } } },
      }],
    },
  };
  t.is((await s.req('POST', CRDS, formats)).status, 201);
  const base = '/apis/fmt.example.com/v1/namespaces/default/leases';
  const good = { renewAt: '2026-11-29T10:00:00Z', ttl: '1h30m', endpoint: 'https://lease.example.com/renew', owner: 'Ops <ops@example.com>', nets: ['10.0.0.0/8', 'fd00::/8'], id: '123e4567-e89b-12d3-a456-426614174000', code: 'anything goes' };
  const created = await s.req('POST', base, { apiVersion: 'fmt.example.com/v1', kind: 'Lease', metadata: { name: 'ok' }, spec: good });
  t.is(created.status, 201, created.text);
  t.deepEqual(created.json.spec, good);

  const bad = await s.req('POST', base, { apiVersion: 'fmt.example.com/v1', kind: 'Lease', metadata: { name: 'bad' }, spec: { ...good, renewAt: 'tomorrow', nets: ['10.0.0.0/8', '10.0.0.0/33'], ttl: '90 fortnights' } });
  t.is(bad.status, 422, bad.text);
  t.is(bad.json.reason, 'Invalid');
  t.deepEqual(bad.json.details.causes.map((c: { field: string; message: string }) => [c.field, c.message]), [
    ['spec.renewAt', 'Invalid value: "tomorrow": spec.renewAt in body must be of type date-time: "tomorrow"'],
    ['spec.ttl', 'Invalid value: "90 fortnights": spec.ttl in body must be of type duration: "90 fortnights"'],
    ['spec.nets[1]', 'Invalid value: "10.0.0.0/33": spec.nets[1] in body must be of type cidr: "10.0.0.0/33"'],
  ]);
  t.is((await s.req('GET', `${base}/bad`)).status, 404, 'nothing stored');

  const patched = await s.req('PATCH', `${base}/ok`, JSON.stringify({ spec: { endpoint: 'relative/path', id: 'not-a-uuid' } }), { 'content-type': 'application/merge-patch+json' });
  t.is(patched.status, 422, patched.text);
  t.deepEqual(patched.json.details.causes.map((c: { field: string }) => c.field), ['spec.endpoint', 'spec.id']);
  t.deepEqual((await s.req('GET', `${base}/ok`)).json.spec, good, 'the refused patch did not land');
});
