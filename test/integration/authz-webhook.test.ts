import test from 'ava';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { initDevPki } from '../../src/certs/pki.ts';
import { startServer, type TestServer } from '../helpers/server.ts';

// Webhook mode: each decision is a SubjectAccessReview POSTed to a real https service.

const received: Array<Record<string, unknown>> = [];
let hook: https.Server;
let srv: TestServer;

test.before(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'portcullis-webhook-'));
  const pki = initDevPki(dir);
  hook = https.createServer({ cert: readFileSync(pki.servingCert), key: readFileSync(pki.servingKey) }, (req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const sar = JSON.parse(body) as { apiVersion: string; spec: { user: string; resourceAttributes?: { verb: string } } };
      received.push(sar);
      const allowed = sar.spec.user === 'hooked' && sar.spec.resourceAttributes?.verb !== 'delete';
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ apiVersion: sar.apiVersion, kind: 'SubjectAccessReview', status: allowed ? { allowed: true } : { allowed: false, reason: 'the webhook says no' } }));
    });
  });
  await new Promise<void>((r) => hook.listen(0, '127.0.0.1', () => r()));
  const port = (hook.address() as AddressInfo).port;
  const config = join(dir, 'webhook.kubeconfig');
  writeFileSync(
    config,
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters:',
      `- name: hook\n  cluster:\n    server: https://127.0.0.1:${port}/authorize\n    certificate-authority: ${pki.caCert}`,
      'users:',
      `- name: apiserver\n  user:\n    client-certificate: ${pki.adminCert}\n    client-key: ${pki.adminKey}`,
      'contexts:',
      '- name: webhook\n  context:\n    cluster: hook\n    user: apiserver',
      'current-context: webhook',
      '',
    ].join('\n'),
  );
  const tokens = join(dir, 'tokens.csv');
  writeFileSync(tokens, 'hook-token,hooked,1,"team-a"\nother-token,other,2\n');
  srv = await startServer({ authorizationMode: ['Webhook'], authorizationWebhookConfigFile: config, tokenAuthFile: tokens });
});
test.after.always(async () => {
  await srv?.close();
  hook?.close();
});

test.serial('the webhook decides; denials carry its reason', async (t) => {
  const ok = await srv.req('GET', '/api/v1/namespaces/default/configmaps', undefined, { authorization: 'Bearer hook-token' });
  t.is(ok.status, 200, ok.text);
  const sent = received.at(-1) as { apiVersion: string; kind: string; spec: Record<string, unknown> };
  t.is(sent.apiVersion, 'authorization.platform.io/v1beta1');
  t.is(sent.kind, 'SubjectAccessReview');
  t.is(sent.spec.user, 'hooked');
  t.deepEqual(sent.spec.group, ['team-a', 'system:authenticated']);
  t.deepEqual(sent.spec.resourceAttributes, { namespace: 'default', verb: 'list', version: 'v1', resource: 'configmaps' });
  const no = await srv.req('GET', '/api/v1/namespaces/default/configmaps', undefined, { authorization: 'Bearer other-token' });
  t.is(no.status, 403);
  t.regex(no.json.message, /User "other" cannot list resource "configmaps".*: the webhook says no$/);
  const del = await srv.req('DELETE', '/api/v1/namespaces/default/configmaps/x', undefined, { authorization: 'Bearer hook-token' });
  t.is(del.status, 403);
});

test.serial('answers are cached; an unreachable webhook is a 500', async (t) => {
  const before = received.length;
  await srv.req('GET', '/api/v1/namespaces/default/configmaps', undefined, { authorization: 'Bearer hook-token' });
  t.is(received.length, before, 'a repeated decision is served from the cache');
  await new Promise<void>((r) => {
    hook.close(() => r());
    hook.closeAllConnections();
  });
  const r = await srv.req('GET', '/api/v1/namespaces/default/secrets', undefined, { authorization: 'Bearer hook-token' });
  t.is(r.status, 500);
  t.is(r.json.kind, 'Status');
  t.is(r.json.reason, 'InternalError');
});
