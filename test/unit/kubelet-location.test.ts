// Where kubelet-facing requests go: the node's preferred address, its kubelet port, `[scheme:]name[:port]`.
import test from 'ava';
import type { ApiObject } from '../../src/api/object.ts';
import { kubeletOf, serviceBackend, splitSchemeNamePort } from '../../src/registry/kubelet/location.ts';
import { StatusError } from '../../src/request/errors.ts';

const node = (addresses: Array<[string, string]>, port?: number): ApiObject =>
  ({ metadata: { name: 'n' }, status: { addresses: addresses.map(([type, address]) => ({ type, address })), ...(port === undefined ? {} : { daemonEndpoints: { kubeletEndpoint: { Port: port } } }) } }) as ApiObject;

test('the preferred address type wins whatever the order of status.addresses', (t) => {
  t.deepEqual(kubeletOf(node([['ExternalIP', '1.1.1.1'], ['InternalIP', '10.0.0.1'], ['Hostname', 'host-a']], 10255)), { host: 'host-a', port: 10255 });
  t.is(kubeletOf(node([['ExternalIP', '1.1.1.1'], ['InternalIP', '10.0.0.1']])).host, '10.0.0.1');
  t.is(kubeletOf(node([['LegacyHostIP', '9.9.9.9'], ['ExternalIP', '1.1.1.1']])).host, '1.1.1.1');
  t.is(kubeletOf(node([['LegacyHostIP', '9.9.9.9']])).host, '9.9.9.9');
});

test('the kubelet port defaults to 10250 when unset, zero or not a port', (t) => {
  for (const port of [undefined, 0, 70000]) t.is(kubeletOf(node([['InternalIP', '10.0.0.1']], port)).port, 10250);
});

test('a node without a usable address: the reference NoMatchError text, as a 503 (unreachable, not a server fault)', (t) => {
  const e = t.throws(() => kubeletOf(node([['Weird', 'x']])), { instanceOf: StatusError }) as StatusError;
  t.is(e.code, 503);
  t.is(e.reason, 'ServiceUnavailable');
  t.is(e.message, 'no preferred addresses found; known addresses: [{Weird x}]');
});

test('[scheme:]name[:port]', (t) => {
  t.deepEqual(splitSchemeNamePort('web', 'service'), { scheme: '', name: 'web', port: '' });
  t.deepEqual(splitSchemeNamePort('web:http', 'service'), { scheme: '', name: 'web', port: 'http' });
  t.deepEqual(splitSchemeNamePort('https:web:443', 'service'), { scheme: 'https', name: 'web', port: '443' });
  for (const bad of ['ftp:web:1', 'a:b:c:d', ':80']) t.throws(() => splitSchemeNamePort(bad, 'pod'), { message: `invalid pod request ${JSON.stringify(bad)}` });
});

test('a service port number is translated to its name, then matched in the endpoints', (t) => {
  const svc = { metadata: { name: 'web' }, spec: { ports: [{ name: 'http', port: 80 }, { name: 'admin', port: 9000 }] } } as ApiObject;
  const eps = { metadata: { name: 'web' }, subsets: [{ addresses: [{ ip: '10.1.0.1' }], ports: [{ name: 'http', port: 8080 }] }, { addresses: [{ ip: '10.1.0.2' }], ports: [{ name: 'admin', port: 9001 }] }] } as ApiObject;
  t.deepEqual(serviceBackend(svc, eps, '80', 'web:80'), { host: '10.1.0.1', port: 8080 });
  t.deepEqual(serviceBackend(svc, eps, 'admin', 'web:admin'), { host: '10.1.0.2', port: 9001 });
  t.like(t.throws(() => serviceBackend(svc, eps, '81', 'web:81')) as StatusError, { code: 503, message: 'no service port 81 found for service "web"' });
  t.like(t.throws(() => serviceBackend(svc, eps, '', 'web')) as StatusError, { code: 503, message: 'no endpoints available for service "web"' });
});

test('an endpoint stored before validation refused special addresses is not proxied to; what is checked is what is dialled', (t) => {
  const svc = { metadata: { name: 'web' }, spec: { ports: [{ name: 'http', port: 80 }] } } as ApiObject;
  const at = (ip: string) => ({ metadata: { name: 'web' }, subsets: [{ addresses: [{ ip }], ports: [{ name: 'http', port: 8080 }] }] }) as ApiObject;
  for (const ip of ['127.0.0.1', '127.000.000.001', '169.254.169.254', '::1', '::ffff:127.0.0.1', '0.0.0.0', 'fe80::1', '0177.0.0.1', '2130706433', 'localhost']) {
    t.like(t.throws(() => serviceBackend(svc, at(ip), 'http', 'web')) as StatusError, { code: 400, message: 'address not allowed' }, ip);
  }
  // octets are read as decimal, as validation reads them, never as the resolver's octal
  t.deepEqual(serviceBackend(svc, at('010.001.000.001'), 'http', 'web'), { host: '10.1.0.1', port: 8080 });
  t.deepEqual(serviceBackend(svc, at('017.0.0.1'), 'http', 'web'), { host: '17.0.0.1', port: 8080 });
});
