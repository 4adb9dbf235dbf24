// pods/log, proxy (pods, services, nodes, legacy /api/v1/proxy/...), and exec/attach/portforward
// upgrades through the server to a stand-in kubelet over TLS with a client certificate.
import test from 'ava';
import net from 'node:net';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { startServer, type TestServer } from '../helpers/server.ts';
import { startStandInKubelet, type StandInKubelet } from '../helpers/stand-in-kubelet.ts';

let s: TestServer;
let k: StandInKubelet;
const NS = 'default';

test.before(async () => {
  k = await startStandInKubelet();
  const dir = mkdtempSync(join(tmpdir(), 'kubelet-client-'));
  const file = (name: string, text: string) => {
    writeFileSync(join(dir, name), text);
    return join(dir, name);
  };
  s = await startServer({
    kubeletCertificateAuthority: file('ca.crt', k.ca.certPem),
    kubeletClientCertificate: file('client.crt', k.client.certPem),
    kubeletClientKey: file('client.key', k.client.keyPem),
    kubeletTimeout: '2s',
    tokenAuthFile: file('tokens.csv', 'secret,alice,1\n'),
  });
  const ok = (r: { status: number; text: string }) => {
    if (r.status >= 300) throw new Error(r.text);
  };
  ok(await s.req('POST', '/api/v1/nodes', { metadata: { name: 'n1' }, status: { addresses: [{ type: 'ExternalIP', address: '192.0.2.1' }, { type: 'InternalIP', address: k.hostAddress }], daemonEndpoints: { kubeletEndpoint: { Port: k.port } } } }));
  ok(await s.req('POST', '/api/v1/nodes', { metadata: { name: 'down' }, status: { addresses: [{ type: 'InternalIP', address: '127.0.0.1' }], daemonEndpoints: { kubeletEndpoint: { Port: 1 } } } }));
  const pod = (name: string, nodeName: string | undefined, containers = ['c']) => ({
    metadata: { name },
    spec: { nodeName, containers: containers.map((c) => ({ name: c, image: 'busybox' })) },
  });
  ok(await s.req('POST', `/api/v1/namespaces/${NS}/pods`, pod('p', 'n1')));
  ok(await s.req('POST', `/api/v1/namespaces/${NS}/pods`, pod('two', 'n1', ['a', 'b'])));
  ok(await s.req('POST', `/api/v1/namespaces/${NS}/pods`, pod('pending', undefined)));
  ok(await s.req('POST', `/api/v1/namespaces/${NS}/pods`, pod('lost', 'down')));
  const p = await s.req('GET', `/api/v1/namespaces/${NS}/pods/p`);
  ok(await s.req('PUT', `/api/v1/namespaces/${NS}/pods/p/status`, { ...p.json, status: { phase: 'Running', podIP: k.hostAddress } }));
  ok(await s.req('POST', `/api/v1/namespaces/${NS}/services`, { metadata: { name: 'web' }, spec: { ports: [{ name: 'http', port: 80, targetPort: k.backendPort }] } }));
  ok(await s.req('POST', `/api/v1/namespaces/${NS}/endpoints`, { metadata: { name: 'web' }, subsets: [{ addresses: [{ ip: k.hostAddress }], ports: [{ name: 'http', port: k.backendPort }] }] }));
});

test.serial('endpoints and external IPs may not be loopback, link-local or unspecified: the proxy would reach the server\'s own host', async (t) => {
  const cases: Array<[string, string]> = [
    ['127.0.0.1', 'may not be in the loopback range (127.0.0.0/8)'],
    ['127.000.000.001', 'may not be in the loopback range (127.0.0.0/8)'],
    ['::ffff:127.0.0.1', 'may not be in the loopback range (127.0.0.0/8)'],
    ['::1', 'may not be in the loopback range (127.0.0.0/8)'],
    ['169.254.169.254', 'may not be in the link-local range (169.254.0.0/16)'],
    ['fe80::1', 'may not be in the link-local range (169.254.0.0/16)'],
    ['0.0.0.0', 'may not be unspecified (0.0.0.0)'],
    ['224.0.0.1', 'may not be in the link-local multicast range (224.0.0.0/24)'],
  ];
  for (const [ip, message] of cases) {
    const ep = await s.req('POST', `/api/v1/namespaces/${NS}/endpoints`, { metadata: { name: 'sneaky' }, subsets: [{ notReadyAddresses: [{ ip }], ports: [{ port: 80 }] }] });
    t.is(ep.status, 422, ip);
    t.deepEqual(ep.json.details.causes, [{ reason: 'FieldValueInvalid', field: 'subsets[0].notReadyAddresses[0].ip', message: `Invalid value: ${JSON.stringify(ip)}: ${message}` }], ip);
    const svc = await s.req('POST', `/api/v1/namespaces/${NS}/services`, { metadata: { name: 'sneaky' }, spec: { ports: [{ port: 80 }], externalIPs: [ip] } });
    t.is(svc.status, 422, ip);
    t.is(svc.json.details.causes[0].field, 'spec.externalIPs[0]');
  }
  t.is((await s.req('GET', `/api/v1/namespaces/${NS}/endpoints/sneaky`)).status, 404);
});
test.after.always(async () => {
  await s?.close();
  await k?.close();
});

// the reference's IsProxyableIP / IsProxyableHostname: what someone wrote into a pod's status or a
// node's addresses may not point the server at its own host or the cloud's metadata service
test.serial('pod and node proxy refuse loopback, link-local and unspecified addresses, and names that resolve to them', async (t) => {
  const backendHits = k.backendRequests.length;
  const kubeletHits = k.requests.length;
  const podAt = async (name: string, podIP: string) => {
    const created = await s.req('POST', `/api/v1/namespaces/${NS}/pods`, { metadata: { name }, spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'busybox' }] } });
    t.is(created.status, 201, created.text);
    const put = await s.req('PUT', `/api/v1/namespaces/${NS}/pods/${name}/status`, { ...created.json, status: { phase: 'Running', podIP } });
    t.is(put.status, 200, put.text);
  };
  const refused = (r: { status: number; json: { reason?: string; message?: string } }, what: string) => {
    t.is(r.status, 400, what);
    t.like(r.json, { reason: 'BadRequest', message: 'address not allowed' }, what);
  };
  for (const [i, ip] of ['127.0.0.1', '0177.0.0.1', '::1', '::ffff:127.0.0.1', '169.254.169.254', '0.0.0.0', 'localhost', 'example.com'].entries()) {
    await podAt(`odd-${i}`, ip);
    refused(await s.req('GET', `/api/v1/namespaces/${NS}/pods/odd-${i}:${k.backendPort}/proxy/x`), `pod proxy to ${ip}`);
    refused(await s.req('GET', `/api/v1/namespaces/${NS}/pods/odd-${i}/proxy/x`), `pod proxy to ${ip}, default port`);
    refused(await s.req('GET', `/api/v1/proxy/namespaces/${NS}/pods/odd-${i}:${k.backendPort}/x`), `legacy pod proxy to ${ip}`);
  }
  const nodeAt = async (name: string, type: string, address: string) => {
    const r = await s.req('POST', '/api/v1/nodes', { metadata: { name }, status: { addresses: [{ type, address }], daemonEndpoints: { kubeletEndpoint: { Port: k.port } } } });
    t.is(r.status, 201, r.text);
  };
  await nodeAt('loop', 'InternalIP', '127.0.0.1');
  await nodeAt('meta', 'ExternalIP', '169.254.169.254');
  // a name is resolved where it is dialled, and refused when it resolves to loopback
  await nodeAt('named', 'Hostname', 'localhost');
  for (const node of ['loop', 'meta', 'named']) {
    refused(await s.req('GET', `/api/v1/nodes/${node}/proxy/stats`), `node proxy to ${node}`);
    refused(await s.req('GET', `/api/v1/nodes/${node}:${k.backendPort}/proxy/stats`), `node proxy to ${node}, another port`);
    refused(await s.req('GET', `/api/v1/proxy/nodes/${node}/stats`), `legacy node proxy to ${node}`);
  }
  t.is(k.backendRequests.length, backendHits, 'nothing reached the backend');
  t.is(k.requests.length, kubeletHits, 'nothing reached the kubelet');
  // a node's logs and exec go to fixed kubelet paths, as in the reference: a loopback kubelet still serves them
  const logged = await s.req('POST', `/api/v1/namespaces/${NS}/pods`, { metadata: { name: 'on-loop' }, spec: { nodeName: 'loop', containers: [{ name: 'c', image: 'busybox' }] } });
  t.is(logged.status, 201);
  const logs = await s.req('GET', `/api/v1/namespaces/${NS}/pods/on-loop/log`);
  t.is(logs.status, 200, logs.text);
  t.is(k.requests.at(-1)!.url, `/containerLogs/${NS}/on-loop/c`);
});

const log = (q = '', pod = 'p') => s.req('GET', `/api/v1/namespaces/${NS}/pods/${pod}/log${q}`);

test.serial('log: the kubelet /containerLogs over TLS with the client certificate, text/plain', async (t) => {
  const r = await log();
  t.is(r.status, 200);
  t.is(r.headers.get('content-type'), 'text/plain');
  t.is(r.text, 'line one\nline two\nline three\nline four\n');
  const seen = k.requests.at(-1)!;
  t.is(seen.url, `/containerLogs/${NS}/p/c`);
  t.is(seen.clientCn, 'apiserver-kubelet-client');
});

test.serial('log: every parameter goes to the kubelet', async (t) => {
  const r = await log('?container=c&timestamps=true&tailLines=2&limitBytes=1000&previous=true&sinceSeconds=10');
  t.is(r.status, 200);
  t.is(r.text, 'previous 2026-01-01T00:00:00.000000000Z line three\nprevious 2026-01-01T00:00:00.000000000Z line four\n');
  t.is(k.requests.at(-1)!.url, `/containerLogs/${NS}/p/c?previous=true&timestamps=true&sinceSeconds=10&tailLines=2&limitBytes=1000`);
  t.is((await log('?sinceTime=2026-01-01T00:00:00Z')).status, 200);
  t.is(k.requests.at(-1)!.url, `/containerLogs/${NS}/p/c?sinceTime=2026-01-01T00%3A00%3A00Z`);
});

test.serial('log: invalid options are 422 on PodLogOptions, malformed values 400', async (t) => {
  const cases: Array<[string, number, string]> = [
    ['?tailLines=-1', 422, 'PodLogOptions "p" is invalid: tailLines: Invalid value: -1: must be greater than or equal to 0'],
    ['?limitBytes=0', 422, 'PodLogOptions "p" is invalid: limitBytes: Invalid value: 0: must be greater than 0'],
    ['?sinceSeconds=0', 422, 'PodLogOptions "p" is invalid: sinceSeconds: Invalid value: 0: must be greater than 0'],
    ['?sinceSeconds=5&sinceTime=2026-01-01T00:00:00Z', 422, 'PodLogOptions "p" is invalid: : Forbidden: at most one of `sinceTime` or `sinceSeconds` may be specified'],
    ['?tailLines=x', 400, 'strconv.ParseInt: parsing "x": invalid syntax'],
    ['?follow=maybe', 400, 'strconv.ParseBool: parsing "maybe": invalid syntax'],
  ];
  for (const [q, code, message] of cases) {
    const r = await log(q);
    t.is(r.status, code, q);
    t.like(r.json, { kind: 'Status', code, message }, q);
  }
});

test.serial('log: container defaulting and the reference Status answers', async (t) => {
  let r = await log('', 'two');
  t.is(r.status, 400);
  t.like(r.json, { reason: 'BadRequest', message: 'a container name must be specified for pod two, choose one of: [a b]' });
  r = await log('?container=b', 'two');
  t.is(r.status, 200);
  t.is(k.requests.at(-1)!.url, `/containerLogs/${NS}/two/b`);
  r = await log('?container=zz');
  t.like(r.json, { code: 400, message: 'container zz is not valid for pod p' });
  r = await log('', 'pending');
  t.is(r.status, 204);
  t.is(r.text, '');
  r = await log('', 'nope');
  t.like(r.json, { code: 404, reason: 'NotFound', message: 'pods "nope" not found' });
  r = await log('', 'lost');
  t.is(r.status, 500);
  t.like(r.json, { kind: 'Status', code: 500, message: `Get "https://127.0.0.1:1/containerLogs/${NS}/lost/c": dial tcp 127.0.0.1:1: connect: connection refused` });
  t.is(r.json.reason, undefined);
});

test.serial('log -f streams: lines arrive before the kubelet ends the response', async (t) => {
  const ac = new AbortController();
  const res = await fetch(`${s.url}/api/v1/namespaces/${NS}/pods/p/log?follow=true`, { signal: ac.signal });
  t.is(res.status, 200);
  const reader = res.body!.getReader();
  let text = '';
  while (!text.includes('follow 2\n')) {
    const { value, done } = await reader.read();
    if (done) break;
    text += Buffer.from(value).toString();
  }
  ac.abort();
  t.true(text.startsWith('line one\nline two\nline three\nline four\nfollow 1\nfollow 2\n'));
});

test.serial('proxy: pods, by port, with the path, query, method and body; credentials not sent on', async (t) => {
  const r = await s.req('POST', `/api/v1/namespaces/${NS}/pods/p:${k.backendPort}/proxy/some/path?a=1`, 'hello', { authorization: 'Bearer secret', 'content-type': 'text/plain' });
  t.is(r.status, 200);
  t.is(r.text, 'backend POST /some/path?a=1 body=hello\n');
  t.is(r.headers.get('x-backend'), 'yes');
  const seen = k.backendRequests.at(-1)!;
  t.is(seen.headers.authorization, undefined);
  t.is(seen.headers['content-type'], 'text/plain');
});

test.serial('proxy: a body sent after `Expect: 100-continue` gets its 100 Continue and reaches the backend', async (t) => {
  const port = Number(new URL(s.url).port);
  const text = await new Promise<string>((resolve, reject) => {
    const sock = net.connect(port, '127.0.0.1');
    let got = '';
    let sent = false;
    const timer = setTimeout(() => { sock.destroy(); resolve(got); }, 5000);
    sock.on('data', (d: Buffer) => {
      got += d.toString('latin1');
      if (!sent && /^HTTP\/1\.1 100 Continue\r\n\r\n/.test(got)) { sent = true; sock.write('hello'); }
      if (/body=hello\n\r\n0\r\n\r\n$/.test(got)) { clearTimeout(timer); sock.destroy(); resolve(got); }
    });
    sock.on('error', reject);
    sock.on('connect', () => sock.write(`POST /api/v1/namespaces/${NS}/pods/p:${k.backendPort}/proxy/asked HTTP/1.1\r\nhost: x\r\nauthorization: Bearer secret\r\ncontent-type: text/plain\r\ncontent-length: 5\r\nexpect: 100-continue\r\n\r\n`));
  });
  t.deepEqual(text.match(/HTTP\/1\.1 \d{3} [^\r]*/g), ['HTTP/1.1 100 Continue', 'HTTP/1.1 200 OK']);
  t.regex(text, /\r\nbackend POST \/asked body=hello\n\r\n/);
});

test.serial('proxy: services via their endpoints (name:port forms), nodes to the kubelet, and the legacy paths', async (t) => {
  t.is((await s.req('GET', `/api/v1/namespaces/${NS}/services/web:http/proxy/x`)).text, 'backend GET /x\n');
  t.is((await s.req('GET', `/api/v1/namespaces/${NS}/services/http:web:80/proxy/y`)).text, 'backend GET /y\n');
  t.is((await s.req('GET', `/api/v1/proxy/namespaces/${NS}/services/web:http/z`)).text, 'backend GET /z\n');
  t.is((await s.req('GET', `/api/v1/proxy/namespaces/${NS}/pods/p:${k.backendPort}/legacy`)).text, 'backend GET /legacy\n');
  t.is((await s.req('GET', '/api/v1/nodes/n1/proxy/stats/summary')).text, 'kubelet GET /stats/summary\n');
  t.is((await s.req('GET', '/api/v1/proxy/nodes/n1/healthz')).text, 'kubelet GET /healthz\n');
  const none = await s.req('GET', `/api/v1/namespaces/${NS}/services/web:other/proxy/`);
  t.like(none.json, { code: 503, reason: 'ServiceUnavailable', message: 'no endpoints available for service "web:other"' });
  const bad = await s.req('GET', `/api/v1/namespaces/${NS}/services/ftp:web:80/proxy/`);
  t.like(bad.json, { code: 400, message: 'invalid service request "ftp:web:80"' });
  const badPort = await s.req('GET', `/api/v1/namespaces/${NS}/pods/p:99999/proxy/`);
  t.like(badPort.json, { kind: 'Status', code: 400, message: 'invalid pod request "p:99999"' });
  const unscheduled = await s.req('GET', `/api/v1/namespaces/${NS}/pods/pending/proxy/`);
  t.like(unscheduled.json, { kind: 'Status', code: 400, message: 'pod pending does not have an IP address assigned' });
});

test.serial('proxy: a redirect Location on the backend is rewritten under the proxy path', async (t) => {
  const res = await fetch(`${s.url}/api/v1/namespaces/${NS}/pods/p:${k.backendPort}/proxy/redirect`, { redirect: 'manual' });
  t.is(res.status, 302);
  t.is(res.headers.get('location'), `${s.url}/api/v1/namespaces/${NS}/pods/p:${k.backendPort}/proxy/moved/here`);
});

test.serial('proxy: links in a proxied HTML page get the proxy path, gzip bodies too; other pages are untouched', async (t) => {
  const prefix = `/api/v1/namespaces/${NS}/pods/p:${k.backendPort}/proxy`;
  const through = `${s.url}${prefix}`;
  const expected =
    `<!DOCTYPE html><html><head><link href="${through}/style.css" rel="stylesheet"><script src="${through}/app.js"></script></head>` +
    `<body background="${through}/bg.png"><a href="${through}/abs/path?q=1#top">abs</a> <a href="rel/path">rel</a> ` +
    `<a href="${through}/same-host/">same host</a> <a href="http://elsewhere.example/x">other host</a> ` +
    `<a href="//elsewhere.example/y">scheme-relative</a> <img src="${through}/img/%C3%BC.png" alt="/not-a-link"> ` +
    `<form action="${through}/submit"><input formaction="${through}/alt"></form><p data-x="/untouched">/text/stays</p></body></html>`;
  for (const query of ['', '?gzip']) {
    const res = await fetch(`${through}/page.html${query}`);
    t.is(res.status, 200);
    t.is(res.headers.get('content-encoding'), query ? 'gzip' : null);
    t.is(await res.text(), expected, `page${query}`);
  }
  // past the first MiB a page goes on as written: a link that never ends is not held (a 100 MB one
  // took the tokenizer 77 s), and links after it keep the backend's paths; 20 MB, plain and gzip
  for (const query of ['?mb=20', '?mb=20&gzip']) {
    const res = await fetch(`${through}/endless-link.html${query}`);
    const text = await res.text();
    t.is(text.length, '<html><body><a href="/">x</a><a href="/after">y</a></body></html>'.length + 20 * 1024 * 1024, query);
    t.true(text.startsWith('<html><body><a href="/AAAA') && text.endsWith('">x</a><a href="/after">y</a></body></html>'), query);
  }
  // a plain-text body with a path in it is not HTML: passed as written
  const plain = await fetch(`${through}/abs`);
  t.is(await plain.text(), 'backend GET /abs\n');
});

function wsUrl(path: string): string {
  return `${s.url.replace(/^http/, 'ws')}${path}`;
}

function execOver(protocol: string, path: string, stdin?: string): Promise<{ out: string; status: string; protocol: string }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(wsUrl(path), [protocol]);
    let out = '';
    let status = '';
    ws.on('open', () => {
      if (stdin !== undefined) {
        ws.send(Buffer.concat([Buffer.from([0]), Buffer.from(stdin)]));
        ws.send(Buffer.from([255, 0]));
      }
    });
    ws.on('message', (d: Buffer) => {
      if (d[0] === 1) out += d.subarray(1).toString();
      if (d[0] === 3) status = d.subarray(1).toString();
    });
    ws.on('close', () => resolve({ out, status, protocol: ws.protocol }));
    ws.on('error', reject);
    ws.on('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c));
      res.on('end', () => reject(new Error(`${res.statusCode} ${body}`)));
    });
  });
}

test.serial('exec over WebSocket v5 and v4: the kubelet /exec joined byte for byte', async (t) => {
  const r = await execOver('v5.channel.k8s.io', `/api/v1/namespaces/${NS}/pods/p/exec?command=echo&command=hi&stdout=true`);
  t.is(r.protocol, 'v5.channel.k8s.io');
  t.is(r.out, 'hi\n');
  t.is(JSON.parse(r.status).status, 'Success');
  t.is(k.requests.at(-1)!.url, `/exec/${NS}/p/c?command=echo&command=hi&stdout=true`);
  t.is(k.requests.at(-1)!.clientCn, 'apiserver-kubelet-client');
  const cat = await execOver('v5.channel.k8s.io', `/api/v1/namespaces/${NS}/pods/p/exec?command=cat&stdin=true&stdout=true`, 'typed in');
  t.is(cat.out, 'typed in');
  const v4 = await execOver('v4.channel.k8s.io', `/api/v1/namespaces/${NS}/pods/p/exec?command=echo&command=v4&stdout=true`);
  t.is(v4.protocol, 'v4.channel.k8s.io');
  t.is(v4.out, 'v4\n');
  const attached = await execOver('v5.channel.k8s.io', `/api/v1/namespaces/${NS}/pods/p/attach?stdin=true&stdout=true`, 'to attach');
  t.is(attached.out, 'to attach');
  t.is(k.requests.at(-1)!.url, `/attach/${NS}/p/c?stdin=true&stdout=true`);
});

test.serial('portforward: bytes both ways over the upgraded connection', async (t) => {
  const ws = new WebSocket(wsUrl(`/api/v1/namespaces/${NS}/pods/p/portforward?ports=80`), ['portforward.k8s.io']);
  await new Promise((r, j) => (ws.on('open', r), ws.on('error', j)));
  const back = new Promise<Buffer>((r) => ws.once('message', (d: Buffer) => r(d)));
  ws.send(Buffer.from([0, 0, 0, 1, 2, 3]));
  t.deepEqual([...(await back)], [0, 0, 0, 1, 2, 3]);
  t.is(k.requests.at(-1)!.url, `/portForward/${NS}/p?ports=80`);
  ws.close();
});

test.serial('a SPDY/3.1 upgrade (kubectl 1.20, and kubectl 1.32 falling back) is joined to the kubelet, both ways', async (t) => {
  const sock = connect(Number(new URL(s.url).port), '127.0.0.1');
  await once(sock, 'connect');
  sock.write(`POST /api/v1/namespaces/${NS}/pods/p/exec?command=sh&stdin=true HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\nX-Stream-Protocol-Version: v4.channel.k8s.io\r\nX-Stream-Protocol-Version: v3.channel.k8s.io\r\nContent-Length: 0\r\n\r\n`);
  let got = Buffer.alloc(0);
  const until = async (pred: (b: Buffer) => boolean) => {
    while (!pred(got)) got = Buffer.concat([got, (await once(sock, 'data'))[0] as Buffer]);
  };
  await until((b) => b.includes('\r\n\r\n'));
  const headEnd = got.indexOf('\r\n\r\n') + 4;
  const head = got.subarray(0, headEnd).toString();
  t.regex(head, /^HTTP\/1\.1 101 Switching Protocols\r\n/);
  t.regex(head, /X-Stream-Protocol-Version: v4\.channel\.k8s\.io/);
  got = got.subarray(headEnd);
  // a SPDY/3 PING (control bit, version 3, type 6, length 4, id 0xdeadbeef): the kubelet sends it back unchanged
  const frame = Buffer.from([0x80, 0x03, 0x00, 0x06, 0x00, 0x00, 0x00, 0x04, 0xde, 0xad, 0xbe, 0xef]);
  sock.write(frame);
  await until((b) => b.length >= frame.length);
  t.deepEqual(got, frame);
  const seen = k.requests.at(-1)!;
  t.is(seen.method, 'POST');
  t.is(seen.url, `/exec/${NS}/p/c?command=sh&stdin=true`);
  t.is(seen.headers['x-stream-protocol-version'], 'v4.channel.k8s.io, v3.channel.k8s.io');
  sock.destroy();
});

function rawUpgrade(path: string, method = 'POST'): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${s.url}${path}`, { method, headers: { connection: 'Upgrade', upgrade: 'SPDY/3.1', 'x-stream-protocol-version': 'v4.channel.k8s.io' } });
    req.on('response', (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('upgrade', (res, socket) => {
      socket.destroy();
      resolve({ status: res.statusCode ?? 0, body: '' });
    });
    req.on('error', reject);
    req.end();
  });
}

test.serial('exec refusals are Status answers before anything reaches a kubelet', async (t) => {
  let r = await rawUpgrade(`/api/v1/namespaces/${NS}/pods/pending/exec?command=ls`);
  t.is(r.status, 400);
  t.like(JSON.parse(r.body), { kind: 'Status', message: 'pod pending does not have a host assigned' });
  r = await rawUpgrade(`/api/v1/namespaces/${NS}/pods/two/exec?command=ls`);
  t.like(JSON.parse(r.body), { code: 400, message: 'a container name must be specified for pod two, choose one of: [a b]' });
  r = await rawUpgrade(`/api/v1/namespaces/${NS}/pods/lost/exec?command=ls`);
  t.is(r.status, 500);
  const plain = await s.req('POST', `/api/v1/namespaces/${NS}/pods/p/exec?command=ls`);
  t.like(plain.json, { code: 400, message: 'Upgrade request required' });
});

test.serial('a refusal of a streamed subresource is answered in JSON when the Accept header admits no type of ours', async (t) => {
  // these handlers write their own answers; the JSON fallback for an unacceptable Accept once left
  // the answer to Koa, which had been told not to send one, and the request hung
  const accept = { accept: 'application/json;q=x' };
  const cases: Array<[string, number]> = [
    [`/api/v1/namespaces/${NS}/pods/nosuch/log`, 404],
    ['/api/v1/nodes/nosuch/proxy/stats', 404],
    [`/api/v1/namespaces/${NS}/services/nosuch/proxy/`, 404],
    [`/api/v1/namespaces/${NS}/pods/two/log`, 400],
  ];
  for (const [path, code] of cases) {
    const r = await Promise.race([s.req('GET', path, undefined, accept), new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${path}: no answer in 5 s`)), 5000))]);
    t.is(r.status, code, path);
    t.is(r.headers.get('content-type'), 'application/json', path);
    t.like(r.json, { kind: 'Status', code }, path);
  }
});
