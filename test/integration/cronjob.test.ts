import test from 'ava';
import { startServer, type TestServer } from '../helpers/server.ts';

// batch/v1 CronJob through real HTTP: the reference's defaults, its schedule and template rules with
// its words, the status subresource, and the table kubectl prints.

let srv: TestServer;
test.before(async () => {
  srv = await startServer();
});
test.after.always(() => srv?.close());

const BASE = '/apis/batch/v1/namespaces/default/cronjobs';
const podSpec = { containers: [{ name: 'c', image: 'busybox' }], restartPolicy: 'OnFailure' };
function cronJob(name: string, spec: Record<string, unknown> = {}, jobSpec: Record<string, unknown> = {}) {
  return { apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name }, spec: { schedule: '*/5 * * * *', jobTemplate: { spec: { template: { spec: podSpec }, ...jobSpec } }, ...spec } };
}

test('create: stored with the reference\'s defaults, status cleared, served under batch/v1', async (t) => {
  const body = cronJob('nightly', { status: undefined });
  const r = await srv.req('POST', BASE, { ...body, status: { active: [{ name: 'x' }] } });
  t.is(r.status, 201, r.text);
  t.like(r.json.spec, { schedule: '*/5 * * * *', concurrencyPolicy: 'Allow', suspend: false, successfulJobsHistoryLimit: 3, failedJobsHistoryLimit: 1 });
  t.is(r.json.spec.jobTemplate.spec.template.spec.dnsPolicy, 'ClusterFirst', 'the pod template gets the pod defaults');
  t.deepEqual(r.json.status, {});
  const got = await srv.req('GET', `${BASE}/nightly`);
  t.is(got.status, 200);
  t.is(got.json.kind, 'CronJob');
  const list = await srv.req('GET', '/apis/batch/v1/cronjobs');
  t.true(list.json.items.some((i: { metadata: { name: string } }) => i.metadata.name === 'nightly'));
  const found = (await srv.req('GET', '/apis/batch/v1')).json.resources.find((x: { name: string }) => x.name === 'cronjobs');
  t.like(found, { kind: 'CronJob', namespaced: true, shortNames: ['cj'], categories: ['all'] });
  t.truthy((await srv.req('GET', '/apis/batch/v1')).json.resources.find((x: { name: string }) => x.name === 'cronjobs/status'));
});

test('schedules, time zones and policies are checked with the reference\'s words', async (t) => {
  const refused = async (body: unknown, re: RegExp) => {
    const r = await srv.req('POST', BASE, body);
    t.is(r.status, 422, r.text);
    t.is(r.json.reason, 'Invalid');
    t.regex(r.json.message, re);
  };
  await refused(cronJob('a', { schedule: 'tonight' }), /spec\.schedule: Invalid value: "tonight": expected exactly 5 fields, found 1: \[tonight\]/);
  await refused(cronJob('a', { schedule: '61 * * * *' }), /spec\.schedule: Invalid value: "61 \* \* \* \*": end of range \(61\) above maximum \(59\): 61/);
  await refused(cronJob('a', { schedule: '' }), /spec\.schedule: Required value/);
  await refused(cronJob('a', { schedule: 'TZ=UTC 0 0 * * *' }), /cannot use TZ or CRON_TZ in schedule, use timeZone field instead/);
  await refused(cronJob('a', { timeZone: 'Mars/Olympus' }), /spec\.timeZone: Invalid value: "Mars\/Olympus": unknown time zone Mars\/Olympus/);
  await refused(cronJob('a', { timeZone: 'Local' }), /timeZone must be an explicit time zone/);
  await refused(cronJob('a', { concurrencyPolicy: 'Sometimes' }), /spec\.concurrencyPolicy: Unsupported value: "Sometimes": supported values: "Allow", "Forbid", "Replace"/);
  await refused(cronJob('a', { startingDeadlineSeconds: -1 }), /spec\.startingDeadlineSeconds: Invalid value: -1: must be greater than or equal to 0/);
  await refused(cronJob('a', { successfulJobsHistoryLimit: -2 }), /spec\.successfulJobsHistoryLimit/);
  await refused(cronJob('x'.repeat(53)), /metadata\.name: Invalid value: "x{53}": must be no more than 52 characters/);
  await refused(cronJob('a', {}, { selector: { matchLabels: { a: 'b' } } }), /spec\.jobTemplate\.spec\.selector: Invalid value: .*`selector` will be auto-generated/);
  await refused(cronJob('a', {}, { manualSelector: true }), /spec\.jobTemplate\.spec\.manualSelector: Unsupported value: true/);
  const always = cronJob('a');
  (always.spec.jobTemplate.spec.template.spec as Record<string, unknown>) = { ...podSpec, restartPolicy: 'Always' };
  await refused(always, /spec\.jobTemplate\.spec\.template\.spec\.restartPolicy: Unsupported value: "Always": supported values: "OnFailure", "Never"/);
  const noContainers = cronJob('a');
  (noContainers.spec.jobTemplate.spec.template.spec as Record<string, unknown>) = { restartPolicy: 'Never', containers: [] };
  await refused(noContainers, /spec\.jobTemplate\.spec\.template\.spec\.containers: Required value/);
  await refused({ apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name: 'a' }, spec: { schedule: '* * * * *' } }, /spec\.jobTemplate: Required value/);
  await refused(cronJob('a', { schedule: 5 }), /spec\.schedule: Invalid value: 5: .*string/);
  t.is((await srv.req('GET', `${BASE}/a`)).status, 404, 'nothing refused was stored');
  // the accepted forms
  for (const [name, spec] of [['tz', { timeZone: 'Europe/Berlin' }], ['daily', { schedule: '@daily' }], ['names', { schedule: '0 9 * jan-jun MON-FRI', concurrencyPolicy: 'Forbid' }]] as const) {
    const r = await srv.req('POST', BASE, cronJob(name, spec));
    t.is(r.status, 201, r.text);
  }
});

test('updates are validated too; status is written through its subresource only', async (t) => {
  t.is((await srv.req('POST', BASE, cronJob('upd'))).status, 201);
  const bad = await srv.req('PATCH', `${BASE}/upd`, { spec: { schedule: '* * *' } }, { 'content-type': 'application/merge-patch+json' });
  t.is(bad.status, 422, bad.text);
  const suspend = await srv.req('PATCH', `${BASE}/upd`, { spec: { suspend: true } }, { 'content-type': 'application/strategic-merge-patch+json' });
  t.is(suspend.status, 200, suspend.text);
  t.true(suspend.json.spec.suspend);
  const lastSchedule = '2026-11-29T10:00:00Z';
  const status = await srv.req('PATCH', `${BASE}/upd/status`, { status: { lastScheduleTime: lastSchedule, active: [{ kind: 'Job', name: 'upd-1', namespace: 'default' }] } }, { 'content-type': 'application/merge-patch+json' });
  t.is(status.status, 200, status.text);
  t.is(status.json.status.lastScheduleTime, lastSchedule);
  const ignored = await srv.req('PATCH', `${BASE}/upd`, { status: { active: [] } }, { 'content-type': 'application/merge-patch+json' });
  t.is(ignored.json.status.active.length, 1, 'the main resource does not write status');

  const table = await srv.req('GET', `${BASE}/upd`, undefined, { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' });
  t.is(table.status, 200, table.text);
  t.deepEqual(table.json.columnDefinitions.map((c: { name: string }) => c.name), ['Name', 'Schedule', 'Timezone', 'Suspend', 'Active', 'Last Schedule', 'Age', 'Containers', 'Images', 'Selector']);
  const cells = table.json.rows[0].cells;
  t.deepEqual(cells.slice(0, 5), ['upd', '*/5 * * * *', '<none>', 'True', 1]);
  t.regex(cells[5], /^\d+[smhdy]/, 'last schedule, as an age');
  t.deepEqual(cells.slice(7), ['c', 'busybox', '<none>']);
});
