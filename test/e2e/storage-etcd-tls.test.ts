// The etcd backend over TLS: an etcd that serves clients on https and requires a client certificate
// (`--client-cert-auth`), and `portcullis serve` pointed at it with --etcd-cafile, --etcd-certfile and
// --etcd-keyfile. Without the client certificate, or trusting the wrong CA, the server refuses to
// start with a message that says so.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { Etcd3 } from 'etcd3';
import { readFileSync } from 'node:fs';
import { createCa } from '../../src/certs/issue.ts';
import { startEtcd, type EtcdCluster } from '../helpers/etcd.ts';
import { startServeProcess, writeServiceAccountKey } from '../helpers/process-server.ts';

let etcd: EtcdCluster;
let dir = '';
let keyFile = '';

test.before(async () => {
  etcd = await startEtcd(1, { tls: true });
  dir = await mkdtemp(join(tmpdir(), 'portcullis-etcd-tls-'));
  keyFile = writeServiceAccountKey(dir);
});
test.after.always(async () => {
  await etcd?.stop();
  await rm(dir, { recursive: true, force: true });
});

const serveFlags = (extra: string[]) => [
  '--storage-backend=etcd3',
  `--etcd-servers=${etcd.endpoints.join(',')}`,
  `--service-account-key-file=${keyFile}`,
  ...extra,
];

test('serve stores in a TLS etcd with a client certificate: writes land under the prefix and read back', async (t) => {
  const tls = etcd.tls!;
  t.true(etcd.endpoints[0]!.startsWith('https://'));
  const server = await startServeProcess({
    args: serveFlags([`--etcd-cafile=${tls.caFile}`, `--etcd-certfile=${tls.certFile}`, `--etcd-keyfile=${tls.keyFile}`, '--etcd-prefix=/tls-registry']),
  });
  try {
    const created = await server.req('POST', '/api/v1/namespaces/default/configmaps', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'over-tls' },
      data: { secure: 'yes' },
    });
    t.is(created.status, 201, created.text);
    const read = await server.req('GET', '/api/v1/namespaces/default/configmaps/over-tls');
    t.is(read.status, 200);
    t.is((read.json as { data: Record<string, string> }).data.secure, 'yes');

    // The object is in etcd itself, under the chosen prefix, at the revision the server reported.
    const client = new Etcd3({
      hosts: etcd.endpoints,
      credentials: { rootCertificate: readFileSync(tls.caFile), certChain: readFileSync(tls.certFile), privateKey: readFileSync(tls.keyFile) },
    });
    try {
      const kv = (await client.get('/tls-registry/core/configmaps/default/over-tls').exec()).kvs[0];
      t.truthy(kv, 'the key is in etcd');
      t.is(JSON.parse(kv!.value.toString()).data.secure, 'yes');
      t.is(kv!.mod_revision, (created.json as { metadata: { resourceVersion: string } }).metadata.resourceVersion);
    } finally {
      client.close();
    }
  } finally {
    await server.kill('SIGTERM');
  }
});

test('without a client certificate the TLS etcd refuses the server, which exits saying so', async (t) => {
  const error = await t.throwsAsync(
    startServeProcess({ args: serveFlags([`--etcd-cafile=${etcd.tls!.caFile}`]), startTimeoutMs: 60_000 }),
  );
  t.regex(error!.message, /exited/);
  t.regex(error!.message, /etcd/i);
});

test('trusting another CA, the server does not talk to etcd and exits saying so', async (t) => {
  const otherCa = join(dir, 'other-ca.crt');
  await writeFile(otherCa, createCa('not-etcds-ca').certPem);
  const tls = etcd.tls!;
  const error = await t.throwsAsync(
    startServeProcess({
      args: serveFlags([`--etcd-cafile=${otherCa}`, `--etcd-certfile=${tls.certFile}`, `--etcd-keyfile=${tls.keyFile}`]),
      startTimeoutMs: 60_000,
    }),
  );
  t.regex(error!.message, /exited/);
  t.regex(error!.message, /etcd/i);
});

test('a client certificate without its key, or an unreadable CA file, is a start-up error naming the flag', async (t) => {
  const tls = etcd.tls!;
  const noKey = await t.throwsAsync(startServeProcess({ args: serveFlags([`--etcd-cafile=${tls.caFile}`, `--etcd-certfile=${tls.certFile}`]) }));
  t.regex(noKey!.message, /--etcd-certfile and --etcd-keyfile go together/);
  const missing = await t.throwsAsync(startServeProcess({ args: serveFlags([`--etcd-cafile=${join(dir, 'nope.crt')}`]) }));
  t.regex(missing!.message, /--etcd-cafile: cannot read .*nope\.crt: ENOENT/);
});
