// Where a kubelet-facing request goes (the reference's ResourceLocation functions): a pod's node and
// that node's kubelet address and port; a pod's own IP for pod proxy; a service's endpoints.
import { isPlainObject, type ApiObject, type JsonObject } from '../../api/object.ts';
import { wireText } from '../../api/safe-json.ts';
import { errors, StatusError } from '../../request/errors.ts';
import { isIP } from 'node:net';
import { canonicalIP, specialIPReasons } from '../../api/validation/common.ts';

/** The reference's default --kubelet-preferred-address-types order (LegacyHostIP last, as 1.5 kept it). */
export const PREFERRED_ADDRESS_TYPES = ['Hostname', 'InternalDNS', 'InternalIP', 'ExternalDNS', 'ExternalIP', 'LegacyHostIP'] as const;
export const DEFAULT_KUBELET_PORT = 10250;

export interface HostPort {
  host: string;
  port: number;
}

const obj = (v: unknown): JsonObject => (isPlainObject(v) ? v : {});
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** The node's address of the first preferred type it has; a Status when it has none. */
export function nodeAddress(node: ApiObject): string {
  const addresses = list(obj(node.status).addresses).map(obj);
  for (const type of PREFERRED_ADDRESS_TYPES) {
    const hit = addresses.find((a) => a.type === type && typeof a.address === 'string' && a.address);
    if (hit) return hit.address as string;
  }
  const known = addresses.map((a) => `{${wireText(a.type)} ${wireText(a.address)}}`).join(' ');
  // the reference's NoMatchError text; the reference answers it as a 500, but nothing is wrong with
  // the server: the node cannot be reached until it reports an address (as for a pod without an IP)
  throw errors.serviceUnavailable(`no preferred addresses found; known addresses: [${known}]`);
}

/** status.daemonEndpoints.kubeletEndpoint.Port, or the default when unset (0 or absent). */
export function kubeletPort(node: ApiObject): number {
  const port = obj(obj(obj(node.status).daemonEndpoints).kubeletEndpoint).Port;
  return typeof port === 'number' && Number.isInteger(port) && port > 0 && port <= 65_535 ? port : DEFAULT_KUBELET_PORT;
}

export function kubeletOf(node: ApiObject): HostPort {
  return { host: nodeAddress(node), port: kubeletPort(node) };
}

/** A pod's spec.nodeName; '' when unscheduled. */
export function podNode(pod: ApiObject): string {
  const n = obj(pod.spec).nodeName;
  return typeof n === 'string' ? n : '';
}

/** `[scheme:]name[:port]` as proxy paths name objects (the reference's SplitSchemeNamePort). */
export function splitSchemeNamePort(id: string, what: 'pod' | 'service' | 'node'): { scheme: string; name: string; port: string } {
  const parts = id.split(':');
  let scheme = '';
  let name: string;
  let port = '';
  if (parts.length === 1) name = parts[0];
  else if (parts.length === 2) [name, port] = parts;
  else if (parts.length === 3) [scheme, name, port] = parts;
  else throw errors.badRequest(`invalid ${what} request ${JSON.stringify(id)}`);
  if (!name || (scheme !== '' && scheme !== 'http' && scheme !== 'https')) throw errors.badRequest(`invalid ${what} request ${JSON.stringify(id)}`);
  return { scheme, name, port };
}

/**
 * The reference's IsProxyableIP: an IP literal that is not unspecified, loopback or link-local, in the
 * form to dial. A proxy subresource may not reach the server's own host (a local etcd, the server's
 * other ports) or the cloud's metadata service through an address someone wrote into an object.
 */
export function proxyableIP(text: string): string {
  const host = canonicalIP(text);
  // an address the resolver would have to read (`0177.0.0.1` is 127.0.0.1 to it, `localhost` anything) is no address
  if (isIP(host) === 0 || specialIPReasons(host).length > 0) throw errors.badRequest('address not allowed');
  return host;
}

/**
 * A node address as the proxy may dial it: an IP literal held to proxyableIP here; a name left to the
 * dial, whose lookup refuses it when it resolves to such an address (Transport.send, proxied).
 */
export function proxyableHost(host: string): string {
  return isIP(canonicalIP(host)) === 0 ? host : proxyableIP(host);
}

/** A host name or IP for a URL: IPv6 literals in brackets. */
export function urlHostname(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

/** Host and port for a URL. */
export function urlHost({ host, port }: HostPort): string {
  return `${urlHostname(host)}:${port}`;
}

/**
 * A service's backend for `port` (a port name, a service port number, or '' for the unnamed port):
 * the first endpoint address of the subset carrying that port, as the reference picks one.
 */
export function serviceBackend(service: ApiObject, endpoints: ApiObject | undefined, portReq: string, id: string): HostPort {
  let portName = portReq;
  if (/^\d+$/.test(portReq)) {
    const hit = list(obj(service.spec).ports).map(obj).find((p) => p.port === Number(portReq));
    if (!hit) throw new StatusError(503, 'ServiceUnavailable', `no service port ${portReq} found for service "${service.metadata.name}"`);
    portName = typeof hit.name === 'string' ? hit.name : '';
  }
  for (const subset of list(endpoints && obj(endpoints).subsets).map(obj)) {
    const addresses = list(subset.addresses).map(obj).filter((a) => typeof a.ip === 'string' && a.ip);
    const port = list(subset.ports).map(obj).find((p) => (typeof p.name === 'string' ? p.name : '') === portName);
    if (port && addresses.length && typeof port.port === 'number') {
      // validation refuses these; an Endpoints stored before it did is refused here
      return { host: proxyableIP(addresses[0].ip as string), port: port.port };
    }
  }
  throw new StatusError(503, 'ServiceUnavailable', `no endpoints available for service ${JSON.stringify(id)}`);
}
