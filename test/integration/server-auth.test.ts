import test from 'ava';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { Agent, request } from 'undici';
import { initDevPki, type DevPkiFiles } from '../../src/certs/pki.ts';
import { createServer, type PortcullisServer } from '../../src/server/server.ts';
import { kubectlFor } from '../helpers/kubectl.ts';

// Authentication and authorization in the real server: HTTPS with the dev PKI, client certificates,
// bearer tokens on both listeners, 401/403 Status shapes, the review endpoints, and logs that never
// carry a credential.

let pki: DevPkiFiles;
let server: PortcullisServer;
const logs: string[] = [];
const TOKEN = 'c2VjcmV0LXRva2VuLWZvci1hbGljZQ';

test.before(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'portcullis-server-auth-'));
  pki = initDevPki(dir);
  const tokens = join(dir, 'tokens.csv');
  writeFileSync(tokens, `${TOKEN},alice,1001,"readers,devs"\nbobtoken,bob,1002\n`);
  const policy = join(dir, 'policy.jsonl');
  const line = (spec: object) => JSON.stringify({ apiVersion: 'abac.authorization.platform.io/v1beta1', kind: 'Policy', spec });
  writeFileSync(
    policy,
    [
      line({ group: 'system:masters', namespace: '*', resource: '*', apiGroup: '*', nonResourcePath: '*' }),
      line({ group: 'readers', namespace: '*', resource: '*', apiGroup: '*', readonly: true }),
      line({ group: 'system:authenticated', nonResourcePath: '*', readonly: true }),
      line({ group: 'proxied-a', namespace: '*', resource: 'pods' }),
      line({ group: 'proxied-b', namespace: '*', resource: 'secrets' }),
      line({ group: 'system:authenticated', resource: 'selfsubjectaccessreviews', apiGroup: 'authorization.platform.io' }),
    ].join('\n'),
  );
  server = await createServer(
    {
      securePort: 0,
      bindAddress: '127.0.0.1',
      insecurePort: 0,
      tlsCertFile: pki.servingCert,
      tlsPrivateKeyFile: pki.servingKey,
      clientCaFile: pki.caCert,
      requestheaderClientCaFile: pki.frontProxyCaCert,
      requestheaderAllowedNames: ['front-proxy-client'],
      tokenAuthFile: tokens,
      authorizationMode: ['ABAC'],
      authorizationPolicyFile: policy,
      runtimeConfig: ['authentication.platform.io/v1beta1=true', 'authorization.platform.io/v1beta1=true'],
      logRequests: true,
    },
    { log: (m) => logs.push(m) },
  );
});
test.after.always(() => server?.close());

function tls(cert?: boolean) {
  return new Agent({
    connect: {
      ca: readFileSync(pki.caCert),
      ...(cert ? { cert: readFileSync(pki.adminCert), key: readFileSync(pki.adminKey) } : {}),
    },
  });
}

async function get(url: string, opts: { agent?: Agent; headers?: Record<string, string>; method?: string; body?: string } = {}) {
  const r = await request(url, { dispatcher: opts.agent, headers: opts.headers, method: (opts.method ?? 'GET') as 'GET', body: opts.body });
  const text = await r.body.text();
  return { status: r.statusCode, headers: r.headers, json: text.startsWith('{') ? JSON.parse(text) : undefined, text };
}

test('the admin client certificate (CN admin, O system:masters) may do anything over HTTPS', async (t) => {
  const r = await get(`${server.secureUrl}/api/v1/namespaces`, { agent: tls(true) });
  t.is(r.status, 200, r.text);
  const c = await get(`${server.secureUrl}/api/v1/namespaces/default/configmaps`, {
    agent: tls(true),
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ metadata: { name: 'by-admin' } }),
  });
  t.is(c.status, 201, c.text);
});

test('the machines kubectl with the admin kubeconfig lists namespaces', async (t) => {
  const k = kubectlFor(server.secureUrl!, [`--kubeconfig=${pki.adminKubeconfig}`]);
  const r = await k.run(['get', 'namespaces', '-o', 'name']);
  t.is(r.code, 0, r.stderr);
  t.true(r.stdout.includes('namespace/default'));
});

test('bearer tokens authenticate on both listeners; the policy decides', async (t) => {
  const auth = { authorization: `Bearer ${TOKEN}` };
  const secure = await get(`${server.secureUrl}/api/v1/namespaces/default/configmaps`, { agent: tls(), headers: auth });
  t.is(secure.status, 200, secure.text);
  const insecure = await get(`${server.insecureUrl}/api/v1/namespaces/default/configmaps`, { headers: auth });
  t.is(insecure.status, 200, insecure.text);
  const write = await get(`${server.insecureUrl}/api/v1/namespaces/default/configmaps`, {
    headers: { ...auth, 'content-type': 'application/json' },
    method: 'POST',
    body: JSON.stringify({ metadata: { name: 'by-alice' } }),
  });
  t.is(write.status, 403);
  t.is(write.json.reason, 'Forbidden');
  t.is(write.json.code, 403);
  t.regex(write.json.message, /^configmaps is forbidden: User "alice" cannot create resource "configmaps" in API group "" in the namespace "default"/);
  t.deepEqual(write.json.details, { kind: 'configmaps' });
});

test('anonymous requests reach authorization, which denies them; the insecure port skips nothing', async (t) => {
  const r = await get(`${server.insecureUrl}/api/v1/namespaces/default/pods/x`);
  t.is(r.status, 403);
  t.is(r.json.message, 'pods "x" is forbidden: User "system:anonymous" cannot get resource "pods" in API group "" in the namespace "default": no policy matched');
  t.deepEqual(r.json.details, { name: 'x', kind: 'pods' });
  const nodes = await get(`${server.secureUrl}/api/v1/nodes`, { agent: tls() });
  t.regex(nodes.json.message, /cannot list resource "nodes" in API group "" at the cluster scope/);
  const path = await get(`${server.insecureUrl}/healthz`);
  t.is(path.status, 403);
  t.regex(path.json.message, /^forbidden: User "system:anonymous" cannot get path "\/healthz"/);
});

test('an invalid bearer token is 401 even with anonymous on; it is never echoed or logged', async (t) => {
  const secret = 'not-a-real-token-0123456789';
  const r = await get(`${server.insecureUrl}/api/v1/namespaces`, { headers: { authorization: `Bearer ${secret}` } });
  t.is(r.status, 401);
  t.is(r.json.kind, 'Status');
  t.is(r.json.reason, 'Unauthorized');
  t.false(r.text.includes(secret));
  await get(`${server.insecureUrl}/api/v1/namespaces`, { headers: { authorization: `Bearer ${TOKEN}` } });
  const all = logs.join('\n');
  t.false(all.includes(secret));
  t.false(all.includes(TOKEN));
  t.true(all.includes('"user":"alice"'), 'the request log names the user');
});

test('TokenReview runs the token authenticators', async (t) => {
  const body = (token: string) => JSON.stringify({ apiVersion: 'authentication.platform.io/v1beta1', kind: 'TokenReview', spec: { token } });
  const ok = await get(`${server.secureUrl}/apis/authentication.platform.io/v1beta1/tokenreviews`, { agent: tls(true), method: 'POST', headers: { 'content-type': 'application/json' }, body: body(TOKEN) });
  t.is(ok.status, 201, ok.text);
  t.true(ok.json.status.authenticated);
  t.is(ok.json.status.user.username, 'alice');
  t.deepEqual(ok.json.status.user.groups, ['readers', 'devs', 'system:authenticated']);
  t.false(ok.text.includes(TOKEN), 'the token is not echoed');
  const bad = await get(`${server.secureUrl}/apis/authentication.platform.io/v1beta1/tokenreviews`, { agent: tls(true), method: 'POST', headers: { 'content-type': 'application/json' }, body: body('nope') });
  t.false(bad.json.status.authenticated);
});

test('SubjectAccessReview answers for a given subject with the servers authorizers', async (t) => {
  const sar = (spec: object) => JSON.stringify({ apiVersion: 'authorization.platform.io/v1beta1', kind: 'SubjectAccessReview', spec });
  const post = (spec: object) => get(`${server.secureUrl}/apis/authorization.platform.io/v1beta1/subjectaccessreviews`, { agent: tls(true), method: 'POST', headers: { 'content-type': 'application/json' }, body: sar(spec) });
  const allowed = await post({ user: 'carol', group: ['readers'], resourceAttributes: { namespace: 'x', verb: 'list', resource: 'pods' } });
  t.is(allowed.status, 201, allowed.text);
  t.true(allowed.json.status.allowed);
  t.regex(allowed.json.status.reason, /allowed by line 2 of policy\.jsonl/);
  t.is(allowed.json.spec.user, 'carol');
  const denied = await post({ user: 'carol', group: ['readers'], resourceAttributes: { namespace: 'x', verb: 'delete', resource: 'pods' } });
  t.false(denied.json.status.allowed);
  t.is(denied.json.status.reason, 'no policy matched');
  const nonRes = await post({ user: 'carol', group: ['system:authenticated'], nonResourceAttributes: { path: '/version', verb: 'get' } });
  t.true(nonRes.json.status.allowed);
  const both = await post({ user: 'carol', resourceAttributes: { verb: 'get' }, nonResourceAttributes: { path: '/x', verb: 'get' } });
  t.is(both.status, 422);
  const none = await post({ resourceAttributes: { verb: 'get', resource: 'pods' } });
  t.is(none.status, 422);
  t.regex(none.json.message, /at least one of user or group must be specified/);
  const asAlice = await get(`${server.insecureUrl}/apis/authorization.platform.io/v1beta1/subjectaccessreviews`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, body: sar({ user: 'x', resourceAttributes: { verb: 'get', resource: 'pods' } }) });
  t.is(asAlice.status, 403, 'creating a review is itself authorized');
});

test('an authenticating proxy vouches with its certificate; repeated group headers stay separate', async (t) => {
  const proxy = new Agent({ connect: { ca: readFileSync(pki.caCert), cert: readFileSync(pki.frontProxyClientCert), key: readFileSync(pki.frontProxyClientKey) } });
  const review = (resource: string) => JSON.stringify({ apiVersion: 'authorization.platform.io/v1beta1', kind: 'SelfSubjectAccessReview', spec: { resourceAttributes: { verb: 'delete', resource, namespace: 'x' } } });
  const ask = async (resource: string) => {
    const r = await request(`${server.secureUrl}/apis/authorization.platform.io/v1beta1/selfsubjectaccessreviews`, {
      dispatcher: proxy,
      method: 'POST',
      headers: ['content-type', 'application/json', 'x-remote-user', 'pat', 'x-remote-group', 'proxied-a', 'x-remote-group', 'proxied-b'],
      body: review(resource),
    });
    return { status: r.statusCode, json: JSON.parse(await r.body.text()) };
  };
  // each group arrives on its own: line 4 (proxied-a) grants pods, line 5 (proxied-b) grants secrets
  const pods = await ask('pods');
  t.is(pods.status, 201, JSON.stringify(pods.json));
  t.true(pods.json.status.allowed);
  t.regex(pods.json.status.reason, /line 4 of policy\.jsonl/);
  const secrets = await ask('secrets');
  t.true(secrets.json.status.allowed);
  t.regex(secrets.json.status.reason, /line 5 of policy\.jsonl/);
  t.false((await ask('nodes')).json.status.allowed);
  // the same headers from a client without the proxy certificate are dropped: anonymous, denied
  const spoof = await get(`${server.insecureUrl}/apis/authorization.platform.io/v1beta1/selfsubjectaccessreviews`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-remote-user': 'pat', 'x-remote-group': 'proxied-a' }, body: review('pods') });
  t.is(spoof.status, 403);
  t.regex(spoof.json.message, /User "system:anonymous"/);
});
