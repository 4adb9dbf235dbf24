import test from 'ava';
import { startServer, type TestServer } from '../helpers/server.ts';

// policy/v1 PodDisruptionBudget through real HTTP: the reference's rules with its words, the
// generation the status is written against, and the table kubectl prints.

let srv: TestServer;
test.before(async () => {
  srv = await startServer();
});
test.after.always(() => srv?.close());

const BASE = '/apis/policy/v1/namespaces/default/poddisruptionbudgets';
const pdb = (name: string, spec: Record<string, unknown>) => ({ apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name }, spec });

test('create, read, list; status starts empty of the controller\'s counts; discovery lists it', async (t) => {
  const r = await srv.req('POST', BASE, { ...pdb('web', { minAvailable: 2, selector: { matchLabels: { app: 'web' } } }), status: { disruptionsAllowed: 9 } });
  t.is(r.status, 201, r.text);
  t.deepEqual(r.json.spec, { minAvailable: 2, selector: { matchLabels: { app: 'web' } } });
  t.is(r.json.status.disruptionsAllowed, 0, 'status is the controller\'s to write');
  t.is(r.json.metadata.generation, 1);
  const list = await srv.req('GET', '/apis/policy/v1/poddisruptionbudgets');
  t.true(list.json.items.some((i: { metadata: { name: string } }) => i.metadata.name === 'web'));
  const resources = (await srv.req('GET', '/apis/policy/v1')).json.resources as Array<{ name: string; shortNames?: string[]; namespaced: boolean }>;
  t.like(resources.find((x) => x.name === 'poddisruptionbudgets'), { namespaced: true, shortNames: ['pdb'] });
  t.truthy(resources.find((x) => x.name === 'poddisruptionbudgets/status'));
  const groups = (await srv.req('GET', '/apis')).json.groups as Array<{ name: string }>;
  t.true(groups.some((g) => g.name === 'policy'));
});

test('the bounds: one of minAvailable and maxUnavailable, each a count or a percentage up to 100%', async (t) => {
  const refused = async (spec: Record<string, unknown>, re: RegExp) => {
    const r = await srv.req('POST', BASE, pdb('bad', spec));
    t.is(r.status, 422, r.text);
    t.is(r.json.reason, 'Invalid');
    t.regex(r.json.message, re);
  };
  await refused({ minAvailable: 1, maxUnavailable: 1 }, /spec: Invalid value: .*: minAvailable and maxUnavailable cannot be both set/);
  await refused({ minAvailable: -1 }, /spec\.minAvailable: Invalid value: -1: must be greater than or equal to 0/);
  await refused({ maxUnavailable: '150%' }, /spec\.maxUnavailable: Invalid value: "150%": must not be greater than 100%/);
  await refused({ minAvailable: 'half' }, /spec\.minAvailable: Invalid value: "half": a valid percent string must be a numeric string followed by an ending '%' \(e\.g\. '1%',  or '93%', regex used for validation is '\[0-9\]\+%'\)/);
  await refused({ minAvailable: 1.5 }, /spec\.minAvailable/);
  await refused({ maxUnavailable: 1, unhealthyPodEvictionPolicy: 'Sometimes' }, /spec\.unhealthyPodEvictionPolicy: Unsupported value: "Sometimes": supported values: "IfHealthyBudget", "AlwaysAllow"/);
  await refused({ minAvailable: 1, selector: { matchExpressions: [{ key: 'a', operator: 'Near' }] } }, /spec\.selector\.matchExpressions\[0\]\.operator/);
  t.is((await srv.req('GET', `${BASE}/bad`)).status, 404, 'nothing refused was stored');
  for (const [name, spec] of [['pct', { maxUnavailable: '25%' }], ['all', { minAvailable: '100%', unhealthyPodEvictionPolicy: 'AlwaysAllow' }], ['none', { maxUnavailable: 0, selector: {} }]] as const) {
    const r = await srv.req('POST', BASE, pdb(name, spec));
    t.is(r.status, 201, r.text);
  }
});

test('a spec change counts a generation; status is written through its subresource; kubectl\'s columns', async (t) => {
  t.is((await srv.req('POST', BASE, pdb('gen', { maxUnavailable: 1, selector: { matchLabels: { app: 'gen' } } }))).status, 201);
  const changed = await srv.req('PATCH', `${BASE}/gen`, { spec: { maxUnavailable: 2 } }, { 'content-type': 'application/merge-patch+json' });
  t.is(changed.status, 200, changed.text);
  t.is(changed.json.metadata.generation, 2);
  const status = await srv.req('PATCH', `${BASE}/gen/status`, { status: { observedGeneration: 2, disruptionsAllowed: 1, currentHealthy: 3, desiredHealthy: 2, expectedPods: 3, disruptedPods: { 'pod-a': '2026-11-29T10:00:00Z' } } }, { 'content-type': 'application/merge-patch+json' });
  t.is(status.status, 200, status.text);
  t.is(status.json.status.disruptionsAllowed, 1);
  t.is(status.json.metadata.generation, 2, 'a status write is no spec change');
  const bad = await srv.req('PATCH', `${BASE}/gen/status`, { status: { disruptedPods: { 'pod-a': 'yesterday' } } }, { 'content-type': 'application/merge-patch+json' });
  t.is(bad.status, 422, bad.text);
  const table = await srv.req('GET', BASE, undefined, { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' });
  t.deepEqual(table.json.columnDefinitions.map((c: { name: string }) => c.name), ['Name', 'Min Available', 'Max Unavailable', 'Allowed Disruptions', 'Age']);
  const row = table.json.rows.find((r: { cells: unknown[] }) => r.cells[0] === 'gen');
  t.deepEqual(row.cells.slice(0, 4), ['gen', 'N/A', '2', 1]);
});
