import test from 'ava';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { customResourceDef } from '../../src/registry/dynamic/custom-def.ts';
import { startServer, type TestServer } from '../helpers/server.ts';

let s: TestServer;
test.before(async () => {
  s = await startServer();
});
test.after.always(async () => {
  await s?.close();
});

const widgets = customResourceDef({ group: 'example.com', version: 'v1', kind: 'Widget', plural: 'widgets', shortNames: ['wd'], namespaced: true });

test.serial('a kind added at run time is discovered, served and watched; removed, it is gone', async (t) => {
  const cat = s.server.catalogue;
  const gen = cat.generation;
  t.is((await s.req('GET', '/apis/example.com/v1/namespaces/default/widgets')).status, 404);
  t.is((await s.req('GET', '/apis/example.com/v1')).status, 404);

  // a request in flight keeps the def it resolved: the one we hold stays valid after swaps
  cat.addDynamic('widgets.example.com', [widgets]);
  t.true(cat.generation > gen);
  t.is(cat.lookup('example.com', 'v1', 'widgets'), widgets);
  const apis = await s.req('GET', '/apis');
  t.true(apis.json.groups.some((g: { name: string }) => g.name === 'example.com'));
  const list = await s.req('GET', '/apis/example.com/v1');
  t.is(list.status, 200);
  t.deepEqual(list.json.resources.map((r: { name: string; kind: string; shortNames?: string[] }) => [r.name, r.kind, r.shortNames]), [['widgets', 'Widget', ['wd']]]);
  const v3 = await s.req('GET', '/openapi/v3');
  t.truthy(v3.json.paths['apis/example.com/v1']);

  const base = '/apis/example.com/v1/namespaces/default/widgets';
  const ac = new AbortController();
  const watch = await fetch(`${s.url}${base}?watch=true&labelSelector=app%3Da`, { signal: ac.signal });
  t.is(watch.status, 200);
  const created = await s.req('POST', base, { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w1', labels: { app: 'a' } }, spec: { size: 3 } });
  t.is(created.status, 201, created.text);
  t.deepEqual(created.json.spec, { size: 3 });
  await s.req('POST', base, { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w2', labels: { app: 'b' } } });
  const reader = watch.body!.getReader();
  const { value } = await reader.read();
  const ev = JSON.parse(new TextDecoder().decode(value).split('\n')[0]);
  t.is(ev.type, 'ADDED');
  t.is(ev.object.metadata.name, 'w1');
  await reader.cancel();
  ac.abort();
  const sel = await s.req('GET', `${base}?labelSelector=app%3Db`);
  t.deepEqual(sel.json.items.map((o: { metadata: { name: string } }) => o.metadata.name), ['w2']);
  t.is(sel.json.kind, 'WidgetList');

  t.throws(() => cat.addDynamic('other', [widgets]), { message: /already served/ });
  t.throws(() => cat.addDynamic('other', [customResourceDef({ group: '', version: 'v1', kind: 'Pod', plural: 'pods', namespaced: true })]), { message: /already served/ });

  t.true(cat.removeDynamic('widgets.example.com'));
  t.is((await s.req('GET', base)).status, 404);
  t.is((await s.req('GET', '/apis/example.com/v1')).status, 404);
  const after = await s.req('GET', '/apis');
  t.false(after.json.groups.some((g: { name: string }) => g.name === 'example.com'));
  t.falsy((await s.req('GET', '/openapi/v3')).json.paths['apis/example.com/v1']);
});

test.serial('definitions stored in a durable backend serve their kinds again after a restart', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'crd-restart-'));
  const crds = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
  const body = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'things.restart.example.com' }, spec: { group: 'restart.example.com', scope: 'Namespaced', names: { plural: 'things', kind: 'Thing' }, versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { n: { type: 'integer' } } } } }] } };
  const one = await startServer({ storageBackend: 'lmdb', dataDir });
  t.is((await one.req('POST', crds, body)).status, 201);
  t.is((await one.req('POST', '/apis/restart.example.com/v1/namespaces/default/things', { apiVersion: 'restart.example.com/v1', kind: 'Thing', metadata: { name: 't' }, n: 1 })).status, 201);
  await one.close();
  const two = await startServer({ storageBackend: 'lmdb', dataDir });
  try {
    const got = await two.req('GET', '/apis/restart.example.com/v1/namespaces/default/things/t');
    t.is(got.status, 200, got.text);
    t.is(got.json.n, 1);
    t.is((await two.req('POST', '/apis/restart.example.com/v1/namespaces/default/things', { apiVersion: 'restart.example.com/v1', kind: 'Thing', metadata: { name: 'u' }, n: 'x' })).status, 422);
  } finally {
    await two.close();
  }
});
