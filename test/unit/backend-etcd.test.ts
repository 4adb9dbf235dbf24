// The backend contract against a real etcd (one member for the whole file; each test its own prefix).
import test from 'ava';
import { Etcd3 } from 'etcd3';
import { BackendConflict, type ObjectKey, type StoreEvent } from '../../src/store/backend.ts';
import { createEtcdBackend } from '../../src/store/backends/etcd.ts';
import { etcdKey, parseEtcdKey } from '../../src/store/backends/etcd-keys.ts';
import { startEtcd, type EtcdCluster } from '../helpers/etcd.ts';
import { openRecording, pod, podKey, registerBackendContract } from './backend-contract.ts';

let etcd: Promise<EtcdCluster> | undefined;
let prefixes = 0;
const cluster = (): Promise<EtcdCluster> => (etcd ??= startEtcd(1));
const freshPrefix = () => `/test-${process.pid}-${++prefixes}`;

test.after.always(async () => {
  await (await etcd)?.stop();
});

registerBackendContract('etcd', async () => {
  const { endpoints } = await cluster();
  const prefix = freshPrefix();
  const opened = [createEtcdBackend({ endpoints, prefix })];
  return {
    backend: opened[0]!,
    reopen: async () => {
      const next = createEtcdBackend({ endpoints, prefix });
      opened.push(next);
      return next;
    },
    cleanup: async () => {
      for (const b of opened) await b.close();
    },
  };
});

test('etcd keys: <prefix>/<group or core>/<resource>/[<namespace>/]<name>', (t) => {
  t.is(etcdKey('/registry', podKey('p')), '/registry/core/pods/default/p');
  t.is(etcdKey('/registry', { group: 'apps', resource: 'deployments', namespace: 'ns', name: 'd' }), '/registry/apps/deployments/ns/d');
  t.is(etcdKey('/registry', { group: '', resource: 'nodes', namespace: '', name: 'n' }), '/registry/core/nodes/n');
  t.deepEqual(parseEtcdKey('/registry', '/registry/core/nodes/n'), { group: '', resource: 'nodes', namespace: '', name: 'n' });
  t.deepEqual(parseEtcdKey('/registry', '/registry/apps/deployments/ns/d'), { group: 'apps', resource: 'deployments', namespace: 'ns', name: 'd' });
  t.is(parseEtcdKey('/registry', '/other/core/nodes/n'), undefined);
  t.is(parseEtcdKey('/registry', '/registry/core/x'), undefined);
});

test('etcd: objects live under the documented key, without resourceVersion in the value', async (t) => {
  const { endpoints } = await cluster();
  const prefix = freshPrefix();
  const backend = createEtcdBackend({ endpoints, prefix });
  const raw = new Etcd3({ hosts: endpoints });
  try {
    await openRecording(backend);
    const event = await backend.commit({ op: 'create', key: podKey('k'), object: pod('k') });
    const kv = (await raw.get(`${prefix}/core/pods/default/k`).exec()).kvs[0];
    t.truthy(kv);
    t.is(Number(kv!.mod_revision), event.revision, 'resourceVersion is the etcd revision');
    const stored = JSON.parse(kv!.value.toString()) as { metadata: Record<string, unknown> };
    t.is(stored.metadata.resourceVersion, undefined);
    t.is(stored.metadata.name, 'k');
  } finally {
    await backend.close();
    raw.close();
  }
});

test('etcd: two backends on one etcd see each other’s writes in the same order', async (t) => {
  const { endpoints } = await cluster();
  const prefix = freshPrefix();
  const a = createEtcdBackend({ endpoints, prefix });
  const b = createEtcdBackend({ endpoints, prefix });
  try {
    const ra = await openRecording(a);
    const rb = await openRecording(b);
    const writes = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        (i % 2 ? a : b).commit({ op: 'create', key: podKey(`p${i}`), object: pod(`p${i}`) }),
      ),
    );
    const expected = writes.map((w) => w.revision).sort((x, y) => x - y);
    // Each backend has emitted its own writes; wait briefly for the other's to arrive.
    const deadline = Date.now() + 5_000;
    while ((ra.events.length < 40 || rb.events.length < 40) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    t.deepEqual(ra.events.map((e) => e.revision), expected);
    t.deepEqual(rb.events.map((e) => e.revision), expected);
    t.deepEqual(ra.events.map((e) => e.key.name), rb.events.map((e) => e.key.name));
    t.true(ra.events.every((e) => e.type === 'ADDED' && e.object.metadata.resourceVersion === String(e.revision)));
  } finally {
    await a.close();
    await b.close();
  }
});

test('etcd: concurrent conflicting updates through two backends: exactly one wins', async (t) => {
  const { endpoints } = await cluster();
  const prefix = freshPrefix();
  const a = createEtcdBackend({ endpoints, prefix });
  const b = createEtcdBackend({ endpoints, prefix });
  try {
    await openRecording(a);
    const rb = await openRecording(b);
    for (let round = 0; round < 5; round++) {
      const name = `c${round}`;
      const created = await a.commit({ op: 'create', key: podKey(name), object: pod(name) });
      const results = await Promise.allSettled(
        [a, b, a, b].map((backend, i) =>
          backend.commit({ op: 'update', key: podKey(name), object: pod(name, { w: String(i) }), expectRevision: created.revision }),
        ),
      );
      t.is(results.filter((r) => r.status === 'fulfilled').length, 1, `round ${round}: one winner`);
      for (const r of results) if (r.status === 'rejected') t.is((r.reason as { kind?: string }).kind, 'modified');
    }
    const deadline = Date.now() + 5_000;
    while (rb.events.length < 10 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    t.deepEqual(rb.events.map((e) => e.type), Array.from({ length: 5 }, () => ['ADDED', 'MODIFIED']).flat());
  } finally {
    await a.close();
    await b.close();
  }
});

/** Waits until `events` holds at least `count` events (the other side's arrive through the watch). */
async function eventsReach(events: StoreEvent[], count: number): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (events.length < count && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
}

const cmKey = (name: string): ObjectKey => ({ group: '', resource: 'configmaps', namespace: 'default', name });
const cm = (name: string, data: Record<string, string>) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' }, data });

test('etcd: values that do not decode are reported by key and skipped, at load and in the watch; a create replaces one', async (t) => {
  const { endpoints } = await cluster();
  const prefix = freshPrefix();
  const raw = new Etcd3({ hosts: endpoints });
  const at = (name: string) => `${prefix}/core/configmaps/default/${name}`;
  const garbage: Record<string, string | Buffer> = {
    text: 'SECRET garbage',
    number: '42',
    string: '"SECRET"',
    array: '[{"metadata":{"name":"array"}}]',
    'metadata-string': '{"metadata":"SECRET"}',
    empty: '{}',
    'name-number': '{"metadata":{"name":5},"SECRET":1}',
    'invalid-utf8': Buffer.from([0xff, 0xfe, 0x7b]),
  };
  const logs: string[] = [];
  const opened = [createEtcdBackend({ endpoints, prefix, log: () => {} })];
  try {
    await openRecording(opened[0]!);
    await opened[0]!.commit({ op: 'create', key: cmKey('good'), object: cm('good', { k: 'v' }) });
    for (const [name, value] of Object.entries(garbage)) await raw.put(at(name)).value(value).exec();
    await raw.put(`${prefix}/core/outside-the-layout`).value('SECRET').exec(); // not ours: ignored, silently

    const backend = createEtcdBackend({ endpoints, prefix, log: (m) => logs.push(m) });
    opened.push(backend);
    const { events, objects } = await openRecording(backend);
    t.deepEqual(objects.map((o) => o.key), [cmKey('good')], 'everything else is served');
    t.deepEqual(logs.map((m) => /key "([^"]+)"/.exec(m)?.[1]).sort(), Object.keys(garbage).map(at).sort());
    t.true(logs.every((m) => /^portcullis: etcd: skipped the stored value of key "[^"]+" at revision \d+ \(/.test(m) && !m.includes('SECRET')), logs.join('\n'));
    logs.length = 0;

    // A create replaces an undecodable value: ADDED, as no one ever saw an object there.
    const created = await backend.commit({ op: 'create', key: cmKey('number'), object: cm('number', { k: 'new' }) });
    t.is(created.type, 'ADDED');
    t.is(created.prev, undefined);
    t.deepEqual(created.object.data, { k: 'new' });
    // Deleting an undecodable value behind the server's back: no event (there was nothing to see).
    await raw.delete().key(at('text')).exec();
    // A decodable value over an undecodable one, behind its back: ADDED.
    await raw.put(at('string')).value(JSON.stringify(cm('string', { fixed: 'yes' }))).exec();
    // An object whose value stops decoding: DELETED with its last state, and reported.
    await raw.put(at('good')).value('SECRET again').exec();
    await eventsReach(events, 3);
    t.deepEqual(events.map((e) => [e.type, e.key.name]), [['ADDED', 'number'], ['ADDED', 'string'], ['DELETED', 'good']]);
    t.deepEqual(events[2]!.object.data, { k: 'v' });
    t.deepEqual(events[2]!.prev?.data, { k: 'v' });
    t.is(logs.length, 1);
    t.regex(logs[0]!, new RegExp(`^portcullis: etcd: skipped the stored value of key "${at('good')}" at revision ${events[2]!.revision} \\(not JSON\\): the object is no longer served`));
    // ...and a create replaces that one too.
    const recreated = await backend.commit({ op: 'create', key: cmKey('good'), object: cm('good', { k: 'again' }) });
    t.is(recreated.type, 'ADDED');
    // a plain create of a key that holds a decodable object is still refused
    await t.throwsAsync(backend.commit({ op: 'create', key: cmKey('string'), object: cm('string', {}) }), { instanceOf: BackendConflict, message: /already exists/ });

    const again = createEtcdBackend({ endpoints, prefix, log: () => {} });
    opened.push(again);
    const reopened = await openRecording(again);
    t.deepEqual(reopened.objects.map((o) => o.key.name).sort(), ['good', 'number', 'string']);
  } finally {
    for (const b of opened) await b.close();
    raw.close();
  }
});

test('etcd: a create over an undecodable value through two backends: exactly one wins, both see it ADDED', async (t) => {
  const { endpoints } = await cluster();
  const prefix = freshPrefix();
  const raw = new Etcd3({ hosts: endpoints });
  const a = createEtcdBackend({ endpoints, prefix, log: () => {} });
  const b = createEtcdBackend({ endpoints, prefix, log: () => {} });
  try {
    for (let round = 0; round < 3; round++) await raw.put(`${prefix}/core/configmaps/default/c${round}`).value('not json').exec();
    const ra = await openRecording(a);
    const rb = await openRecording(b);
    for (let round = 0; round < 3; round++) {
      const name = `c${round}`;
      const results = await Promise.allSettled(
        [a, b, a, b].map((backend, i) => backend.commit({ op: 'create', key: cmKey(name), object: cm(name, { w: String(i) }) })),
      );
      t.is(results.filter((r) => r.status === 'fulfilled').length, 1, `round ${round}: one winner`);
      for (const r of results) if (r.status === 'rejected') t.is((r.reason as { kind?: string }).kind, 'exists');
    }
    await eventsReach(ra.events, 3);
    await eventsReach(rb.events, 3);
    t.deepEqual(ra.events.map((e) => [e.type, e.key.name]), [['ADDED', 'c0'], ['ADDED', 'c1'], ['ADDED', 'c2']]);
    t.deepEqual(rb.events.map((e) => [e.type, e.key.name, e.revision]), ra.events.map((e) => [e.type, e.key.name, e.revision]));
  } finally {
    await a.close();
    await b.close();
    raw.close();
  }
});
