// Restart semantics of the embedded durable store, through real server processes: objects, the list
// resourceVersion and the revision sequence resume where they were; the watch history does not
// survive, so a watch from a revision before the restart's starting point gets 410 Expired, while one
// from the current revision carries on normally.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { openWatch, startServeProcess, writeServiceAccountKey, type ServeProcess } from '../helpers/process-server.ts';

const PATH = '/api/v1/namespaces/default/configmaps';

interface Item {
  metadata: { name: string; resourceVersion: string; uid: string; creationTimestamp: string };
  data: Record<string, string>;
}

async function listed(server: ServeProcess): Promise<{ rv: number; items: Item[] }> {
  const res = await server.req('GET', PATH);
  if (res.status !== 200) throw new Error(`list answered ${res.status}: ${res.text}`);
  return { rv: Number(res.json.metadata.resourceVersion), items: res.json.items as Item[] };
}

for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
  test(`lmdb: state, list resourceVersion and revisions resume after ${signal}; older watches get 410`, async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'portcullis-restart-'));
    // a persistent signing key, so the restarted server's token controller has nothing to reissue
    const args = ['--storage-backend=lmdb', `--data-dir=${join(dir, 'data')}`, `--service-account-key-file=${writeServiceAccountKey(dir)}`];
    let server: ServeProcess | undefined;
    try {
      server = await startServeProcess({ args });
      for (let i = 0; i < 5; i++) {
        t.is((await server.req('POST', PATH, { metadata: { name: `cm-${i}` }, data: { i: String(i) } })).status, 201);
      }
      const early = await listed(server);
      const updated = await server.req('PUT', `${PATH}/cm-0`, { metadata: { name: 'cm-0', resourceVersion: early.items[0]!.metadata.resourceVersion }, data: { i: 'changed' } });
      t.is(updated.status, 200);
      t.is((await server.req('DELETE', `${PATH}/cm-4`)).status, 200);
      const before = await listed(server);
      t.true(before.rv > early.rv);
      t.deepEqual(before.items.map((i) => i.metadata.name), ['cm-0', 'cm-1', 'cm-2', 'cm-3']);

      const exit = await server.kill(signal);
      if (signal === 'SIGTERM') t.is(exit.code, 0, server.output());
      server = await startServeProcess({ args });

      const after = await listed(server);
      // at least where it was: the server's own controllers may have written since `before` was read
      t.true(after.rv >= before.rv, `the list resourceVersion resumes: ${after.rv} after ${before.rv}`);
      t.deepEqual(after.items, before.items, 'objects come back unchanged (uid, timestamps, resourceVersions)');
      const single = await server.req('GET', `${PATH}/cm-0`);
      t.is(single.json.metadata.resourceVersion, updated.json.metadata.resourceVersion);
      t.deepEqual(single.json.data, { i: 'changed' });

      // A watch from a revision whose events were not retained across the restart: 200, one ERROR
      // event with a 410 Expired Status, then the stream ends.
      const old = await openWatch(server.url, `${PATH}?watch=true&resourceVersion=${early.rv}`);
      t.is(old.status, 200);
      const error = await old.next();
      t.is(error?.type, 'ERROR');
      t.like(error?.object, { kind: 'Status', status: 'Failure', code: 410, reason: 'Expired' });
      t.is(await old.next(), undefined, 'the expired stream ends');

      // A watch from the revision the server restarted at misses nothing, so it runs; it sees the
      // next write, whose revision continues the sequence.
      const current = await openWatch(server.url, `${PATH}?watch=true&resourceVersion=${after.rv}`);
      t.is(current.status, 200);
      const created = await server.req('POST', PATH, { metadata: { name: 'cm-new' }, data: { i: 'new' } });
      t.is(created.status, 201);
      const createdRv = Number(created.json.metadata.resourceVersion);
      t.true(createdRv > before.rv, `new revision ${createdRv} continues after ${before.rv}`);
      const event = await current.next();
      t.is(event?.type, 'ADDED');
      t.is(event?.object.metadata.name, 'cm-new');
      t.is(event?.object.metadata.resourceVersion, String(createdRv));
      current.close();
      t.is((await listed(server)).rv, createdRv);

      // Objects from before the restart keep their persisted revision as the update precondition.
      const stale = await server.req('PUT', `${PATH}/cm-1`, { metadata: { name: 'cm-1', resourceVersion: '1' }, data: { i: 'x' } });
      t.is(stale.status, 409, 'a stale resourceVersion still conflicts after the restart');
      const fresh = await server.req('PUT', `${PATH}/cm-1`, { metadata: { name: 'cm-1', resourceVersion: after.items[1]!.metadata.resourceVersion }, data: { i: 'x' } });
      t.is(fresh.status, 200);
      t.true(Number(fresh.json.metadata.resourceVersion) > createdRv);
    } finally {
      await server?.kill('SIGKILL');
      await rm(dir, { recursive: true, force: true });
    }
  });
}
