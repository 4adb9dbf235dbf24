// The kubelet-facing subresources (api-machinery §8.4; spec Pods/Services/Nodes/Proxy): pods/log,
// pods|services|nodes proxy (and the legacy /api/v1/proxy/... form), and the location of exec,
// attach and portforward for the upgrade proxy. Objects are read through the generic registry as
// the caller, after the front door has authorized the request.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { pipeline } from 'node:stream/promises';
import type { Catalogue, ResourceDef } from '../../api/catalogue.ts';
import type { ApiObject } from '../../api/object.ts';
import type { UserInfo } from '../../authn/types.ts';
import type { KubeletOptions } from '../../config/kubelet.ts';
import type { RequestAttributes, RequestTarget } from '../../request/attributes.ts';
import { errors, StatusError } from '../../request/errors.ts';
import type { GenericRegistry } from '../rest.ts';
import { htmlLinkStages, rewritableHtml } from './html-links.ts';
import { kubeletOf, podNode, proxyableHost, proxyableIP, serviceBackend, splitSchemeNamePort, urlHost, urlHostname, type HostPort } from './location.ts';
import { chooseContainer, kubeletLogQuery, parseLogOptions } from './log-options.ts';
import { forwardHeaders, Transport } from './transport.ts';
import { continueIfAsked } from '../../request/unread-body.ts';

/** A request a streaming subresource serves on the raw request and response (nothing buffered). */
export interface StreamingCall {
  target: RequestTarget;
  attrs: Readonly<RequestAttributes>;
  query: URLSearchParams;
  user: UserInfo;
  req: IncomingMessage;
  res: ServerResponse;
}

/** Served only as connection upgrades (server/upgrade.ts); a plain request for them is refused here. */
export const UPGRADE_SUBRESOURCES = new Set(['exec', 'attach', 'portforward']);
/** Subresources served on the raw request, whatever the method. */
export const STREAMING_SUBRESOURCES = new Set(['log', 'proxy', ...UPGRADE_SUBRESOURCES]);

const unreachable = (msg: string) => new StatusError(500, '', msg);
const proxyUnreachable = (msg: string) => new StatusError(503, 'ServiceUnavailable', `error trying to reach service: ${msg.replace(/^\w+ "[^"]*": /, '')}`);

export class KubeletService {
  readonly transport: Transport;
  private readonly defs: { pods: ResourceDef; nodes: ResourceDef; services: ResourceDef; endpoints: ResourceDef };

  constructor(
    private readonly registry: GenericRegistry,
    catalogue: Catalogue,
    options: KubeletOptions,
  ) {
    this.transport = new Transport(options);
    const def = (r: string) => catalogue.lookup('', 'v1', r)!;
    this.defs = { pods: def('pods'), nodes: def('nodes'), services: def('services'), endpoints: def('endpoints') };
  }

  private read(def: ResourceDef, namespace: string, name: string, user: UserInfo): ApiObject {
    return this.registry.get({ def, namespace, name, subresource: '', query: new URLSearchParams(), user }).body as ApiObject;
  }

  private kubeletOfNode(nodeName: string, user: UserInfo): HostPort {
    return kubeletOf(this.read(this.defs.nodes, '', nodeName, user));
  }

  /** Serve a log or proxy request; throws a StatusError before anything is written. */
  serve(call: StreamingCall): Promise<void> {
    const sub = call.target.subresource;
    if (UPGRADE_SUBRESOURCES.has(sub)) throw errors.badRequest('Upgrade request required');
    return sub === 'log' ? this.logs(call) : this.proxy(call);
  }

  private async logs({ target, query, user, req, res }: StreamingCall): Promise<void> {
    if (req.method !== 'GET' && req.method !== 'HEAD') throw errors.methodNotSupported({ group: '', resource: 'pods/log' }, req.method?.toLowerCase() ?? '');
    const pod = this.read(this.defs.pods, target.namespace, target.name, user);
    const opts = parseLogOptions(query, target.name);
    const container = chooseContainer(pod, opts.container);
    const nodeName = podNode(pod);
    if (!nodeName) {
      // the reference answers an unscheduled pod's log with no content at all
      res.writeHead(204);
      res.end();
      return;
    }
    const at = this.kubeletOfNode(nodeName, user);
    const path = `/containerLogs/${[target.namespace, target.name, container].map(encodeURIComponent).join('/')}${kubeletLogQuery(opts)}`;
    const url = new URL(`${this.transport.kubeletScheme}://${urlHost(at)}${path}`);
    const upstream = await this.transport.send(url, 'GET', {}, undefined, unreachable);
    const headers: Record<string, string | string[]> = { 'content-type': 'text/plain', 'cache-control': 'no-cache, private' };
    if (upstream.statusCode !== 200) {
      const ct = upstream.headers['content-type'];
      if (ct) headers['content-type'] = ct;
    }
    res.writeHead(upstream.statusCode, headers);
    res.flushHeaders();
    await pipeline(upstream.body, res).catch(() => res.destroy());
  }

  /** The backend of a proxy request and the path prefix its links are rewritten under. */
  private proxyLocation(call: StreamingCall): { base: string; prefix: string; rest: string } {
    const { target, attrs, user } = call;
    const plural = target.def.plural;
    const what = plural === 'pods' ? 'pod' : plural === 'services' ? 'service' : 'node';
    const { scheme, name, port } = splitSchemeNamePort(target.name, what);
    // a pod or node port is a number a URL can carry (a service port may be a name)
    if (port && plural !== 'services' && !(/^\d{1,5}$/.test(port) && Number(port) >= 1 && Number(port) <= 65_535)) throw errors.badRequest(`invalid ${what} request ${JSON.stringify(target.name)}`);
    const legacy = attrs.verb === 'proxy';
    // the raw path: segments up to and including the name (legacy) or the `proxy` after it, then the rest as sent
    const raw = (call.req.url ?? '/').split('?')[0].replace(/^\/+/, '').split('/');
    const before = (attrs.apiPrefix === 'apis' ? 3 : 2) + (legacy ? 1 : 0) + (attrs.namespace && target.def.namespaced ? 2 : 0) + 2 + (legacy ? 0 : 1);
    const prefix = `/${raw.slice(0, before).join('/')}`;
    const rest = `/${raw.slice(before).join('/')}`;
    let base: string;
    if (plural === 'pods') {
      const pod = this.read(this.defs.pods, target.namespace, name, user);
      const ip = (pod.status as { podIP?: unknown } | undefined)?.podIP;
      if (typeof ip !== 'string' || !ip) throw errors.badRequest(`pod ${name} does not have an IP address assigned`);
      const host = proxyableIP(ip);
      base = `${scheme || 'http'}://${port ? urlHost({ host, port: Number(port) }) : urlHostname(host)}`;
    } else if (plural === 'services') {
      const svc = this.read(this.defs.services, target.namespace, name, user);
      const eps = this.read(this.defs.endpoints, target.namespace, name, user);
      base = `${scheme || 'http'}://${urlHost(serviceBackend(svc, eps, port, target.name))}`;
    } else {
      const at = this.kubeletOfNode(name, user);
      at.host = proxyableHost(at.host);
      base = !port || Number(port) === at.port ? `${this.transport.kubeletScheme}://${urlHost(at)}` : `${scheme || 'http'}://${urlHost({ host: at.host, port: Number(port) })}`;
    }

    return { base, prefix, rest };
  }

  private async proxy(call: StreamingCall): Promise<void> {
    const { req, res, query } = call;
    const { base, prefix, rest } = this.proxyLocation(call);
    // the `path` query parameter is the reference's own (the spec's "path" of proxy operations); the rest go on
    const q = new URLSearchParams(query);
    q.delete('path');
    const qs = q.toString();
    const url = new URL(`${base}${rest}${qs ? `?${qs}` : ''}`);
    const method = req.method ?? 'GET';
    const hasBody = method !== 'GET' && method !== 'HEAD';
    // the body is read for the backend now: a caller that asked may send it
    if (hasBody) continueIfAsked(req, res);
    const upstream = await this.transport.send(url, method, forwardHeaders(req.headers, true), hasBody ? req : undefined, proxyUnreachable, true);
    const headers = forwardHeaders(upstream.headers, false);
    const location = headers.location;
    if (typeof location === 'string') headers.location = rewriteLocation(location, url, prefix, req);
    // links inside HTML pages get the proxy prefix too; the rewritten page has another length
    const html = rewritableHtml(headers['content-type'], headers['content-encoding']);
    if (html) delete headers['content-length'];
    res.writeHead(upstream.statusCode, headers);
    const stages = html ? htmlLinkStages(headers['content-encoding'], (link) => rewriteLocation(link, url, prefix, req)) : [];
    await pipeline([upstream.body, ...stages, res]).catch(() => res.destroy());
  }

  /** The kubelet URL of an exec/attach/portforward upgrade (after checking the pod can take one). */
  connectUrl(target: RequestTarget, query: URLSearchParams, user: UserInfo): URL {
    const pod = this.read(this.defs.pods, target.namespace, target.name, user);
    const nodeName = podNode(pod);
    if (!nodeName) throw errors.badRequest(`pod ${target.name} does not have a host assigned`);
    const at = this.kubeletOfNode(nodeName, user);
    const ns = encodeURIComponent(target.namespace);
    const name = encodeURIComponent(target.name);
    let path: string;
    if (target.subresource === 'portforward') path = `/portForward/${ns}/${name}`;
    else {
      const container = chooseContainer(pod, query.get('container') ?? '');
      path = `/${target.subresource}/${ns}/${name}/${encodeURIComponent(container)}`;
    }
    const q = new URLSearchParams(query);
    q.delete('container');
    const qs = q.toString();
    return new URL(`${this.transport.kubeletScheme}://${urlHost(at)}${path}${qs ? `?${qs}` : ''}`);
  }

  close(): Promise<void> {
    return this.transport.close();
  }
}

/**
 * A backend's redirect as the client must follow it through this server (the reference's proxy
 * transport rewriteURL): an absolute path on the backend gets the proxy prefix; another host or a
 * relative reference is left alone.
 */
export function rewriteLocation(location: string, backend: URL, prefix: string, req: IncomingMessage): string {
  let u: URL;
  try {
    u = new URL(location, backend);
  } catch {
    return location;
  }
  const isAbsolutePath = location.startsWith('/') || /^[a-z][a-z0-9+.-]*:/i.test(location);
  if (u.host !== backend.host || !isAbsolutePath) return location;
  const proto = (req.socket as { encrypted?: boolean }).encrypted ? 'https' : 'http';
  const host = req.headers.host ?? '';
  if (u.pathname.startsWith(prefix)) return `${proto}://${host}${u.pathname}${u.search}${u.hash}`;
  const joined = `${prefix.replace(/\/+$/, '')}${u.pathname}`;
  return `${proto}://${host}${joined}${u.search}${u.hash}`;
}
