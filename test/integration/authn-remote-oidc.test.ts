// OpenID Connect through the real server: a provider of the test over https (discovery, JWKS, key
// rotation mid-run), good and bad id_tokens, a provider that comes up after the server, and kubectl
// with an id-token in its kubeconfig.
import test from 'ava';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { initDevPki, type DevPkiFiles } from '../../src/certs/pki.ts';
import { startServer, type TestServer } from '../helpers/server.ts';
import { buildServerOptions } from '../../src/config/options.ts';
import { createServer } from '../../src/server/server.ts';
import { startOidcProvider, type OidcProvider } from '../helpers/oidc-provider.ts';
import { kubectlFor } from '../helpers/kubectl.ts';

const CLIENT = 'portcullis';
const REVIEWS = 'authentication.platform.io/v1beta1=true';
let dir: string;
let pki: DevPkiFiles;
let idp: OidcProvider;
let srv: TestServer;

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

function abacPolicy(lines: object[]): string {
  const file = join(dir, `abac-${Math.random().toString(36).slice(2)}.jsonl`);
  writeFileSync(file, lines.map((spec) => JSON.stringify({ apiVersion: 'abac.authorization.platform.io/v1beta1', kind: 'Policy', spec })).join('\n') + '\n');
  return file;
}

test.before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'portcullis-oidc-'));
  pki = initDevPki(dir);
  idp = await startOidcProvider(pki, { clientId: CLIENT });
  srv = await startServer({
    oidcIssuerUrl: idp.issuer,
    oidcClientId: CLIENT,
    oidcCaFile: pki.caCert,
    runtimeConfig: [REVIEWS],
    oidcGroupsClaim: 'groups',
    oidcGroupsPrefix: 'oidc:',
    authorizationMode: ['ABAC'],
    // alice may read everything; anyone may post token reviews (to see what a token is)
    authorizationPolicyFile: abacPolicy([
      { user: `${idp.issuer}#alice`, namespace: '*', resource: '*', apiGroup: '*', readonly: true },
      { user: `${idp.issuer}#alice`, nonResourcePath: '*', readonly: true },
      { group: 'system:unauthenticated', namespace: '*', resource: 'tokenreviews', apiGroup: '*' },
    ]),
  });
});
test.after.always(async () => {
  await srv?.close();
  await idp?.close();
});

async function review(s: TestServer, token: string) {
  const r = await s.req('POST', '/apis/authentication.platform.io/v1beta1/tokenreviews', { apiVersion: 'authentication.platform.io/v1beta1', kind: 'TokenReview', spec: { token } });
  if (r.status !== 201 && r.status !== 200) throw new Error(r.text);
  return r.json?.status as { authenticated: boolean; user?: { username: string; groups?: string[] } };
}

test.serial('a good id_token authenticates as <issuer>#sub with prefixed groups', async (t) => {
  const token = await idp.sign({ groups: ['devs', 'ops'] });
  const ok = await srv.req('GET', '/api/v1/namespaces', undefined, bearer(token));
  t.is(ok.status, 200, ok.text);
  const status = await review(srv, token);
  t.true(status.authenticated);
  t.is(status.user?.username, `${idp.issuer}#alice`);
  t.deepEqual(status.user?.groups, ['oidc:devs', 'oidc:ops', 'system:authenticated']);
  // a single string is one group
  t.deepEqual((await review(srv, await idp.sign({ groups: 'solo' }))).user?.groups, ['oidc:solo', 'system:authenticated']);
  // another user is authenticated but not authorized: 403, not 401
  const bob = await srv.req('GET', '/api/v1/namespaces', undefined, bearer(await idp.sign({ sub: 'bob' })));
  t.is(bob.status, 403);
});

test.serial('key rotation: an unknown kid refetches the JWKS once, rate-limited', async (t) => {
  const before = idp.fetches.jwks;
  const old = await idp.sign();
  await idp.rotate();
  const fresh = await idp.sign();
  t.is((await srv.req('GET', '/api/v1/namespaces', undefined, bearer(fresh))).status, 200);
  t.is(idp.fetches.jwks, before + 1, 'the new kid made one refetch');
  t.is((await srv.req('GET', '/api/v1/namespaces', undefined, bearer(fresh))).status, 200);
  t.is(idp.fetches.jwks, before + 1, 'the keys are cached');
  // the retired key no longer verifies; forged kids within the interval cost no fetch
  t.is((await srv.req('GET', '/api/v1/namespaces', undefined, bearer(old))).status, 401);
  for (let i = 0; i < 5; i++) {
    t.is((await srv.req('GET', '/api/v1/namespaces', undefined, bearer(await idp.signForeign()))).status, 401);
  }
  t.is(idp.fetches.jwks, before + 1, 'unknown kids within the interval do not refetch');
});

test.serial('bad tokens are 401 even with anonymous on', async (t) => {
  const now = Math.floor(Date.now() / 1000);
  const bad: Record<string, string> = {
    expired: await idp.sign({ exp: now - 60, iat: now - 400 }),
    'not yet valid': await idp.sign({ nbf: now + 120 }),
    'foreign key': await idp.signForeign(),
    'alg none': idp.unsigned(),
    'other audience': await idp.sign({ aud: 'someone-else' }),
    'other issuer': await idp.sign({ iss: 'https://elsewhere.example' }),
    'no iat': await idp.sign({ iat: undefined }),
    'bad groups type': await idp.sign({ groups: 7 }),
    'no sub': await idp.sign({ sub: undefined }),
    'tampered': (await idp.sign()).slice(0, -4) + 'AAAA',
  };
  for (const [what, token] of Object.entries(bad)) {
    const r = await srv.req('GET', '/api/v1/namespaces', undefined, bearer(token));
    t.is(r.status, 401, what);
    t.is(r.json.reason, 'Unauthorized', what);
    t.false(r.text.includes(token), `${what}: the token is not echoed`);
  }
  // inside the clock skew is still good
  const skewed = await srv.req('GET', '/api/v1/namespaces', undefined, bearer(await idp.sign({ exp: now - 3 })));
  t.is(skewed.status, 200);
  // no credential at all is anonymous (ABAC then refuses the list: 403)
  t.is((await srv.req('GET', '/api/v1/namespaces')).status, 403);
});

test.serial('aud may be a list holding the client id; azp may name another client', async (t) => {
  const token = await idp.sign({ aud: ['other-client', CLIENT], azp: 'other-client' });
  t.is((await srv.req('GET', '/api/v1/namespaces', undefined, bearer(token))).status, 200);
});

test.serial('email as the user name needs email_verified; prefixes and required claims', async (t) => {
  const s = await startServer({
    oidcIssuerUrl: idp.issuer,
    oidcClientId: CLIENT,
    oidcCaFile: pki.caCert,
    runtimeConfig: [REVIEWS],
    oidcUsernameClaim: 'email',
    oidcRequiredClaim: ['hd=example.com'],
  });
  try {
    const good = await review(s, await idp.sign({ email: 'jane@example.com', email_verified: true, hd: 'example.com' }));
    t.is(good.user?.username, 'jane@example.com');
    t.false((await review(s, await idp.sign({ email: 'jane@example.com', email_verified: false, hd: 'example.com' }))).authenticated);
    t.false((await review(s, await idp.sign({ email: 'jane@example.com', hd: 'example.com' }))).authenticated);
    t.false((await review(s, await idp.sign({ email: 'jane@example.com', email_verified: true, hd: 'evil.com' }))).authenticated);
    t.is((await s.req('GET', '/api/v1/namespaces', undefined, bearer(await idp.sign({ email: 'x@example.com', email_verified: true })))).status, 401);
  } finally {
    await s.close();
  }
  const p = await startServer({ oidcIssuerUrl: idp.issuer, oidcClientId: CLIENT, oidcCaFile: pki.caCert, oidcUsernamePrefix: 'oidc:', runtimeConfig: [REVIEWS] });
  try {
    t.is((await review(p, await idp.sign())).user?.username, 'oidc:alice');
  } finally {
    await p.close();
  }
});

test.serial('flags: https only, a client id, known algorithms', (t) => {
  t.throws(() => buildServerOptions({ oidcIssuerUrl: 'http://127.0.0.1:1', oidcClientId: CLIENT }), { message: /--oidc-issuer-url: must use https/ });
  t.throws(() => buildServerOptions({ oidcIssuerUrl: idp.issuer }), { message: /--oidc-client-id is required/ });
  t.throws(() => buildServerOptions({ oidcIssuerUrl: idp.issuer, oidcClientId: CLIENT, oidcSigningAlgs: ['none'] }), { message: /--oidc-signing-algs/ });
  t.throws(() => buildServerOptions({ oidcIssuerUrl: idp.issuer, oidcClientId: CLIENT, oidcSigningAlgs: ['HS256'] }), { message: /--oidc-signing-algs/ });
  t.throws(() => buildServerOptions({ oidcIssuerUrl: idp.issuer, oidcClientId: CLIENT, oidcRequiredClaim: ['novalue'] }), { message: /--oidc-required-claim/ });
  t.notThrows(() => buildServerOptions({ oidcIssuerUrl: idp.issuer, oidcClientId: CLIENT, oidcSigningAlgs: ['RS256', 'ES256'] }));
});

async function freePort(): Promise<number> {
  const s = createNetServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

test.serial('a provider that is down at start: the server runs, OIDC tokens are 401 until it answers', async (t) => {
  const port = await freePort();
  const issuer = `https://127.0.0.1:${port}`;
  const s = await startServer({ oidcIssuerUrl: issuer, oidcClientId: CLIENT, oidcCaFile: pki.caCert });
  let late: OidcProvider | undefined;
  try {
    t.is((await s.req('GET', '/api/v1/namespaces')).status, 200, 'the server serves');
    late = await startOidcProvider(pki, { clientId: CLIENT, port });
    const token = await late.sign();
    const early = await s.req('GET', '/api/v1/namespaces', undefined, bearer(token));
    t.is(early.status, 401, 'within the retry interval the provider is still unknown');
    await new Promise((r) => setTimeout(r, 2200));
    t.is((await s.req('GET', '/api/v1/namespaces', undefined, bearer(token))).status, 200);
    t.is(late.fetches.discovery, 1);
  } finally {
    await s.close();
    await late?.close();
  }
});

test.serial('kubectl with an OIDC id-token in its kubeconfig', async (t) => {
  // over https, as kubectl sends its credentials
  const server = await createServer(
    {
      securePort: 0,
      bindAddress: '127.0.0.1',
      tlsCertFile: pki.servingCert,
      tlsPrivateKeyFile: pki.servingKey,
      oidcIssuerUrl: idp.issuer,
      oidcClientId: CLIENT,
      oidcCaFile: pki.caCert,
      authorizationMode: ['ABAC'],
      authorizationPolicyFile: abacPolicy([
        { user: `${idp.issuer}#alice`, namespace: '*', resource: '*', apiGroup: '*', readonly: true },
        { user: `${idp.issuer}#alice`, nonResourcePath: '*', readonly: true },
      ]),
    },
    { log: () => {} },
  );
  try {
    const token = await idp.sign({ exp: Math.floor(Date.now() / 1000) + 3600 });
    const kubeconfig = join(dir, 'oidc.kubeconfig');
    writeFileSync(
      kubeconfig,
      [
        'apiVersion: v1',
        'kind: Config',
        'clusters:',
        `- name: local\n  cluster:\n    server: ${server.secureUrl}\n    certificate-authority: ${pki.caCert}`,
        'users:',
        `- name: alice\n  user:\n    auth-provider:\n      name: oidc\n      config:\n        idp-issuer-url: ${idp.issuer}\n        client-id: ${CLIENT}\n        id-token: ${token}`,
        'contexts:',
        '- name: oidc\n  context:\n    cluster: local\n    user: alice',
        'current-context: oidc',
        '',
      ].join('\n'),
    );
    const k = kubectlFor(server.secureUrl!, [`--kubeconfig=${kubeconfig}`]);
    const ok = await k.run(['get', 'namespaces', '-o', 'name']);
    t.is(ok.code, 0, ok.stderr);
    t.regex(ok.stdout, /namespace\/default/);
    // alice may read, not write: the refusal names her, so the token (not anonymity) was used
    const del = await k.run(['delete', 'namespace', 'default', '--dry-run=server']);
    t.not(del.code, 0);
    t.regex(del.stderr, /cannot delete/);
    t.true(del.stderr.includes(`${idp.issuer}#alice`), del.stderr);
  } finally {
    await server.close();
  }
});
