// Webhook token authentication through the real server: a TokenReview service of the test over
// https that requires our client certificate, answers counted to see the cache work, and a webhook
// that fails (401 for the token, never 500).
import test from 'ava';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { initDevPki, type DevPkiFiles } from '../../src/certs/pki.ts';
import { startServer, type TestServer } from '../helpers/server.ts';
import { buildServerOptions } from '../../src/config/options.ts';

interface Review {
  apiVersion: string;
  kind: string;
  spec: { token: string; audiences?: string[] };
}

const received: Review[] = [];
const clients: string[] = [];
let mode: 'ok' | 'error' | 'garbage' = 'ok';
let hook: https.Server;
let pki: DevPkiFiles;
let config: string;
let dir: string;

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

function kubeconfigFor(port: number, apiserverUser: boolean): string {
  const file = join(dir, `hook-${port}-${apiserverUser}.kubeconfig`);
  writeFileSync(
    file,
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters:',
      `- name: hook\n  cluster:\n    server: https://127.0.0.1:${port}/authenticate\n    certificate-authority: ${pki.caCert}`,
      'users:',
      apiserverUser ? `- name: apiserver\n  user:\n    client-certificate: ${pki.adminCert}\n    client-key: ${pki.adminKey}` : '- name: apiserver\n  user: {}',
      'contexts:',
      '- name: webhook\n  context:\n    cluster: hook\n    user: apiserver',
      'current-context: webhook',
      '',
    ].join('\n'),
  );
  return file;
}

test.before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'portcullis-token-webhook-'));
  pki = initDevPki(dir);
  hook = https.createServer(
    { cert: readFileSync(pki.servingCert), key: readFileSync(pki.servingKey), ca: readFileSync(pki.caCert), requestCert: true, rejectUnauthorized: true },
    (req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        clients.push(String((req.socket as TLSSocket).getPeerCertificate().subject.CN));
        const review = JSON.parse(body) as Review;
        received.push(review);
        if (mode === 'error') return void res.writeHead(500).end('down');
        res.writeHead(200, { 'content-type': 'application/json' });
        if (mode === 'garbage') return void res.end('{"status": 7');
        const { token } = review.spec;
        // aud-<a>-token: a token meant for audience <a>, which the answer names
        const aud = /^aud-(\w+)-token$/.exec(token);
        const status =
          token === 'jane-token'
            ? { authenticated: true, user: { username: 'jane@example.com', uid: '42', groups: ['developers', 'qa'], extra: { extrafield1: ['extravalue1', 'extravalue2'] } } }
            : aud
              ? { authenticated: true, user: { username: `robot-${aud[1]}`, groups: [] }, audiences: [aud[1]] }
              : { authenticated: false };
        res.end(JSON.stringify({ apiVersion: review.apiVersion, kind: 'TokenReview', status }));
      });
    },
  );
  await new Promise<void>((r) => hook.listen(0, '127.0.0.1', () => r()));
  config = kubeconfigFor((hook.address() as AddressInfo).port, true);
});
test.after.always(() => hook?.close());

async function withServer(opts: Parameters<typeof startServer>[0], fn: (s: TestServer) => Promise<void>): Promise<void> {
  const s = await startServer({ authenticationTokenWebhookConfigFile: config, runtimeConfig: ['authentication.platform.io/v1beta1=true'], ...opts });
  try {
    await fn(s);
  } finally {
    await s.close();
  }
}

test.serial('the webhook authenticates; its answers are cached for the TTL', async (t) => {
  mode = 'ok';
  await withServer({}, async (s) => {
    const before = received.length;
    const r = await s.req('POST', '/apis/authentication.platform.io/v1beta1/tokenreviews', { apiVersion: 'authentication.platform.io/v1beta1', kind: 'TokenReview', spec: { token: 'jane-token' } });
    t.true(r.status === 200 || r.status === 201, r.text);
    t.deepEqual(r.json.status.user, {
      username: 'jane@example.com',
      uid: '42',
      groups: ['developers', 'qa', 'system:authenticated'],
      extra: { extrafield1: ['extravalue1', 'extravalue2'] },
    });
    t.is(received.length, before + 1);
    const sent = received.at(-1)!;
    t.is(sent.apiVersion, 'authentication.platform.io/v1beta1');
    t.is(sent.kind, 'TokenReview');
    t.is(sent.spec.token, 'jane-token');
    t.is(clients.at(-1), 'admin', 'the server presented its client certificate');
    // the same token again, through the request path: a cache hit, no new review
    for (let i = 0; i < 3; i++) t.is((await s.req('GET', '/api/v1/namespaces', undefined, bearer('jane-token'))).status, 200);
    t.is(received.length, before + 1, 'three cache hits');
    // a refused token is 401 (anonymous is on), and that answer is cached too
    t.is((await s.req('GET', '/api/v1/namespaces', undefined, bearer('bad-token'))).status, 401);
    t.is((await s.req('GET', '/api/v1/namespaces', undefined, bearer('bad-token'))).status, 401);
    t.is(received.length, before + 2);
  });
});

test.serial('a TTL of 0 asks every time; v1 sends authentication.k8s.io/v1', async (t) => {
  mode = 'ok';
  await withServer({ authenticationTokenWebhookCacheTtl: '0', authenticationTokenWebhookVersion: 'v1' }, async (s) => {
    const before = received.length;
    t.is((await s.req('GET', '/api/v1/namespaces', undefined, bearer('jane-token'))).status, 200);
    t.is((await s.req('GET', '/api/v1/namespaces', undefined, bearer('jane-token'))).status, 200);
    t.is(received.length, before + 2);
    t.is(received.at(-1)!.apiVersion, 'authentication.k8s.io/v1');
  });
});

test.serial('a failing webhook is a 401 for that token, never a 500; other credentials still work', async (t) => {
  const tokens = join(dir, 'tokens.csv');
  writeFileSync(tokens, 'static-token,static,1\n');
  await withServer({ tokenAuthFile: tokens }, async (s) => {
    for (const m of ['error', 'garbage'] as const) {
      mode = m;
      const r = await s.req('GET', '/api/v1/namespaces', undefined, bearer(`token-while-${m}`));
      t.is(r.status, 401, m);
      t.false(r.text.includes(`token-while-${m}`));
    }
    t.is((await s.req('GET', '/api/v1/namespaces', undefined, bearer('static-token'))).status, 200);
    // failures are not cached: once the webhook is back the token works
    mode = 'ok';
    t.is((await s.req('GET', '/api/v1/namespaces', undefined, bearer('jane-token'))).status, 200);
  });
  // a webhook that refuses our TLS client (no certificate configured) is a 401 as well
  const noCert = kubeconfigFor((hook.address() as AddressInfo).port, false);
  await withServer({ authenticationTokenWebhookConfigFile: noCert, authenticationTokenWebhookCacheTtl: '0' }, async (s) => {
    t.is((await s.req('GET', '/api/v1/namespaces', undefined, bearer('jane-token'))).status, 401);
  });
});

test.serial('--api-audiences: the webhook is asked about them; an answer naming others is refused, one naming none is meant for them', async (t) => {
  mode = 'ok';
  await withServer({ apiAudiences: ['api', 'metrics'] }, async (s) => {
    const before = received.length;
    t.is((await s.req('GET', '/api/v1/namespaces', undefined, bearer('jane-token'))).status, 200, 'no audiences in the answer: the server\'s');
    t.deepEqual(received.at(-1)!.spec.audiences, ['api', 'metrics']);
    t.is((await s.req('GET', '/api/v1/namespaces', undefined, bearer('aud-metrics-token'))).status, 200);
    t.is((await s.req('GET', '/api/v1/namespaces', undefined, bearer('aud-elsewhere-token'))).status, 401);
    // a review about other audiences is passed on as asked, and cached apart from the request path's
    const r = await s.req('POST', '/apis/authentication.platform.io/v1beta1/tokenreviews', { spec: { token: 'aud-elsewhere-token', audiences: ['elsewhere'] } });
    t.true(r.json.status.authenticated, r.text);
    t.deepEqual(r.json.status.audiences, ['elsewhere']);
    t.deepEqual(received.at(-1)!.spec.audiences, ['elsewhere']);
    t.is(received.length, before + 4);
  });
});

test('flags: the cache TTL is a duration; the webhook must be https', async (t) => {
  t.throws(() => buildServerOptions({ authenticationTokenWebhookCacheTtl: 'soon' }), { message: /--authentication-token-webhook-cache-ttl/ });
  t.notThrows(() => buildServerOptions({ authenticationTokenWebhookCacheTtl: '1m30s' }));
  const plain = join(dir, 'plain.kubeconfig');
  writeFileSync(plain, 'clusters:\n- name: h\n  cluster:\n    server: http://127.0.0.1:1/\ncurrent-context: ""\n');
  await t.throwsAsync(startServer({ authenticationTokenWebhookConfigFile: plain }), { message: /must use https/ });
});
