import test from 'ava';
import { startServer, type TestServer } from '../helpers/server.ts';

// scheduling.k8s.io/v1 PriorityClass through real HTTP: the system classes made at start, the
// reference's rules with its words, one global default, and kubectl's columns.

let srv: TestServer;
test.before(async () => {
  srv = await startServer();
});
test.after.always(() => srv?.close());

const BASE = '/apis/scheduling.k8s.io/v1/priorityclasses';
const pc = (name: string, value: unknown, more: Record<string, unknown> = {}) => ({ apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name }, value, ...more });

test('the system classes exist from the start; a user class is stored cluster-wide with the default policy', async (t) => {
  const node = await srv.req('GET', `${BASE}/system-node-critical`);
  t.is(node.status, 200, node.text);
  t.is(node.json.value, 2000001000);
  t.is((await srv.req('GET', `${BASE}/system-cluster-critical`)).json.value, 2000000000);
  const r = await srv.req('POST', BASE, pc('high', 1000, { description: 'important' }));
  t.is(r.status, 201, r.text);
  t.is(r.json.preemptionPolicy, 'PreemptLowerPriority');
  t.is(r.json.metadata.namespace, undefined);
  const resources = (await srv.req('GET', '/apis/scheduling.k8s.io/v1')).json.resources as Array<{ name: string; namespaced: boolean; shortNames?: string[] }>;
  t.like(resources.find((x) => x.name === 'priorityclasses'), { namespaced: false, shortNames: ['pc'] });
});

test('the rules: reserved names, the user ceiling, the policies; value and policy fixed once created', async (t) => {
  const refused = async (body: unknown, code: number, re: RegExp) => {
    const r = await srv.req('POST', BASE, body);
    t.is(r.status, code, r.text);
    t.regex(r.json.message, re);
  };
  await refused(pc('system-mine', 10), 422, /metadata\.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only\. error: system-mine is not a known system priority class/);
  await refused(pc('too-high', 1_000_000_001), 422, /value: Forbidden: maximum allowed value of a user defined priority is 1000000000/);
  await refused(pc('odd', 5, { preemptionPolicy: 'Sometimes' }), 422, /preemptionPolicy: Unsupported value: "Sometimes": supported values: "Never", "PreemptLowerPriority"/);
  await refused(pc('huge', 2 ** 31), 422, /value: Invalid value: 2147483648: must be an integer between/);
  // the value is a Go int32, not a pointer: absent is 0
  const zero = await srv.req('POST', BASE, { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: 'novalue' } });
  t.is(zero.status, 201, zero.text);
  t.is(zero.json.value, 0);

  t.is((await srv.req('POST', BASE, pc('fixed', 50, { preemptionPolicy: 'Never' }))).status, 201);
  const revalued = await srv.req('PATCH', `${BASE}/fixed`, { value: 60 }, { 'content-type': 'application/merge-patch+json' });
  t.is(revalued.status, 422);
  t.regex(revalued.json.message, /value: Forbidden: may not be changed in an update\./);
  const repolicied = await srv.req('PATCH', `${BASE}/fixed`, { preemptionPolicy: 'PreemptLowerPriority' }, { 'content-type': 'application/merge-patch+json' });
  t.is(repolicied.status, 422);
  t.regex(repolicied.json.message, /preemptionPolicy: Invalid value: "PreemptLowerPriority": field is immutable/);
  const described = await srv.req('PATCH', `${BASE}/fixed`, { description: 'still fifty' }, { 'content-type': 'application/merge-patch+json' });
  t.is(described.status, 200, described.text);
});

test('at most one global default; kubectl\'s columns', async (t) => {
  t.is((await srv.req('POST', BASE, pc('default-one', 10, { globalDefault: true }))).status, 201);
  const second = await srv.req('POST', BASE, pc('default-two', 20, { globalDefault: true }));
  t.is(second.status, 403, second.text);
  t.is(second.json.reason, 'Forbidden');
  t.regex(second.json.message, /PriorityClass default-one is already marked as default\. Only one default can exist/);
  t.is((await srv.req('POST', BASE, pc('default-two', 20))).status, 201);
  const promoted = await srv.req('PATCH', `${BASE}/default-two`, { globalDefault: true }, { 'content-type': 'application/merge-patch+json' });
  t.is(promoted.status, 403, 'an update cannot make a second default either');
  t.is((await srv.req('PATCH', `${BASE}/default-one`, { description: 'still the default' }, { 'content-type': 'application/merge-patch+json' })).status, 200, 'the default itself may change');

  const table = await srv.req('GET', BASE, undefined, { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' });
  t.deepEqual(table.json.columnDefinitions.map((c: { name: string }) => c.name), ['Name', 'Value', 'Global-Default', 'Age', 'PreemptionPolicy']);
  const row = table.json.rows.find((r: { cells: unknown[] }) => r.cells[0] === 'default-one');
  t.deepEqual([row.cells[1], row.cells[2], row.cells[4]], [10, true, 'PreemptLowerPriority']);
});
