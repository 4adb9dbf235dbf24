import test from 'ava';
import { generateKeyPairSync } from 'node:crypto';
import { SignJWT } from 'jose';
import { createServer, type PortcullisServer } from '../../src/server/server.ts';
import { createMemoryBackend } from '../../src/store/backends/memory.ts';
import type { Backend, ObjectKey } from '../../src/store/backend.ts';
import type { ApiObject } from '../../src/api/object.ts';
import { waitFor } from './accounts-harness.ts';

// Controllers re-derive their work from what is stored when they start: objects written before the
// server (by an earlier run) are handled like new ones. The store is seeded through the backend, so
// no controller sees those writes happen. No key file: tokens are signed with a generated key.

const TS = '2016-09-26T18:10:32Z';
let server: PortcullisServer;
const logs: string[] = [];

async function seed(backend: Backend, resource: string, namespace: string, obj: ApiObject): Promise<void> {
  const key: ObjectKey = { group: '', resource, namespace, name: obj.metadata.name! };
  await backend.commit({ op: 'create', key, object: { ...obj, metadata: { creationTimestamp: TS, uid: `uid-${resource}-${obj.metadata.name}`, ...obj.metadata } } });
}

async function req(method: string, p: string, body?: unknown) {
  const r = await fetch(server.insecureUrl + p, { method, headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: r.status, json: (await r.json()) as Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any
}

test.before(async () => {
  const backend = createMemoryBackend();
  const ns = (name: string, extra: Partial<ApiObject> = {}): ApiObject => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name }, spec: { finalizers: ['platform'] }, status: { phase: 'Active' }, ...extra });
  await seed(backend, 'namespaces', '', ns('old'));
  await seed(backend, 'namespaces', '', { ...ns('dying'), metadata: { name: 'dying', deletionTimestamp: TS }, status: { phase: 'Terminating' } });
  await seed(backend, 'configmaps', 'dying', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'leftover', namespace: 'dying' } });
  await seed(backend, 'serviceaccounts', 'old', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'legacy', namespace: 'old', uid: 'legacy-uid' } });
  // a token from an earlier run's key, for an account that still exists
  const stale = await new SignJWT({ 'platform.io/serviceaccount/namespace': 'old' })
    .setProtectedHeader({ alg: 'ES256' })
    .setIssuer('platform/serviceaccount')
    .sign(generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey);
  const tokenSecret = (name: string, account: string, uid: string, token: string): ApiObject => ({
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'platform.io/service-account-token',
    metadata: { name, namespace: 'old', annotations: { 'platform.io/service-account.name': account, 'platform.io/service-account.uid': uid } },
    data: { token: Buffer.from(token).toString('base64'), namespace: Buffer.from('old').toString('base64') },
  });
  await seed(backend, 'secrets', 'old', tokenSecret('legacy-token-stale', 'legacy', 'legacy-uid', stale));
  await seed(backend, 'secrets', 'old', tokenSecret('gone-token-abcde', 'gone', 'gone-uid', stale));
  server = await createServer({ insecurePort: 0, authorizationMode: ['AlwaysAllow'], runtimeConfig: ['authentication.platform.io/v1beta1=true'] }, { backend, log: (m) => logs.push(m) });
});
test.after.always(() => server?.close());

test('without a key file the server says it signs with a generated key', (t) => {
  t.true(logs.some((l) => /generated in-memory key/.test(l)));
});

test('a namespace that existed before the start gets its default account and token', async (t) => {
  const sa = await waitFor('default account in old', async () => {
    const r = await req('GET', '/api/v1/namespaces/old/serviceaccounts/default');
    return r.status === 200 && r.json.secrets?.length ? r.json : undefined;
  });
  const secret = (await req('GET', `/api/v1/namespaces/old/secrets/${sa.secrets[0].name}`)).json;
  const token = Buffer.from(secret.data.token, 'base64').toString();
  const review = await req('POST', '/apis/authentication.platform.io/v1beta1/tokenreviews', { spec: { token } });
  t.true(review.json.status.authenticated);
});

test('an existing token the current key cannot verify is re-issued and referenced', async (t) => {
  const secret = await waitFor('legacy token re-issued', async () => {
    const sa = (await req('GET', '/api/v1/namespaces/old/serviceaccounts/legacy')).json;
    if (!sa.secrets?.some((s: { name: string }) => s.name === 'legacy-token-stale')) return undefined;
    return (await req('GET', '/api/v1/namespaces/old/secrets/legacy-token-stale')).json;
  });
  const token = Buffer.from(secret.data.token, 'base64').toString();
  const review = await req('POST', '/apis/authentication.platform.io/v1beta1/tokenreviews', { spec: { token } });
  t.true(review.json.status.authenticated, JSON.stringify(review.json));
  t.is(review.json.status.user.username, 'system:serviceaccount:old:legacy');
  t.is(review.json.status.user.uid, 'legacy-uid');
});

test('a token secret of an account that is gone is deleted', async (t) => {
  await waitFor('orphan deleted', async () => ((await req('GET', '/api/v1/namespaces/old/secrets/gone-token-abcde')).status === 404 ? true : undefined));
  t.is((await req('GET', '/api/v1/namespaces/old/secrets/gone-token-abcde')).status, 404);
});

test('a namespace that was terminating at start is emptied and removed', async (t) => {
  await waitFor('dying gone', async () => ((await req('GET', '/api/v1/namespaces/dying')).status === 404 ? true : undefined));
  t.is((await req('GET', '/api/v1/namespaces/dying/configmaps/leftover')).status, 404);
  t.is((await req('GET', '/api/v1/namespaces/dying/serviceaccounts/default')).status, 404);
});
