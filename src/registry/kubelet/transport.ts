// The connection to kubelets and backends: TLS material from the --kubelet-* flags, undici for HTTP
// (streamed both ways, nothing buffered), Node's own client for connection upgrades, and the
// reference's header rules (hop-by-hop headers dropped, the caller's credentials never sent on).
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { readFileSync } from 'node:fs';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { Agent, request, type Dispatcher } from 'undici';
import { durationMs, type KubeletOptions } from '../../config/kubelet.ts';
import { errors, StatusError } from '../../request/errors.ts';
import { specialIPReasons } from '../../api/validation/common.ts';

export interface Tls {
  ca?: Buffer;
  cert?: Buffer;
  key?: Buffer;
}

export class Transport {
  readonly https: boolean;
  readonly timeoutMs: number;
  readonly tls: Tls;
  private readonly agent: Agent;
  /** For the proxy subresources: names resolve only to addresses a proxy may reach. */
  private readonly proxyAgent: Agent;

  constructor(o: KubeletOptions) {
    this.https = o.kubeletHttps;
    this.timeoutMs = durationMs(o.kubeletTimeout) ?? 5000;
    this.tls = {
      ca: o.kubeletCertificateAuthority ? readFileSync(o.kubeletCertificateAuthority) : undefined,
      cert: o.kubeletClientCertificate ? readFileSync(o.kubeletClientCertificate) : undefined,
      key: o.kubeletClientKey ? readFileSync(o.kubeletClientKey) : undefined,
    };
    const agentOptions = (lookup?: typeof proxyableLookup): Agent.Options => ({
      // without a CA the kubelet's serving certificate is not verified, as the reference does
      connect: { ...this.tls, rejectUnauthorized: Boolean(this.tls.ca), timeout: this.timeoutMs, ...(lookup ? { lookup } : {}) },
      headersTimeout: this.timeoutMs,
      bodyTimeout: 0, // logs -f and proxied streams stay open as long as both ends do
    });
    this.agent = new Agent(agentOptions());
    this.proxyAgent = new Agent(agentOptions(proxyableLookup));
  }

  get kubeletScheme(): 'https' | 'http' {
    return this.https ? 'https' : 'http';
  }

  /**
   * One request, the response body left as a stream. Network failures become the reference's Status.
   * `proxied`: a proxy subresource's request, whose host name must resolve to proxyable addresses only.
   */
  async send(url: URL, method: string, headers: Record<string, string | string[]>, body: NodeJS.ReadableStream | undefined, onError: (msg: string) => StatusError, proxied = false): Promise<Dispatcher.ResponseData> {
    try {
      return await request(url, { method: method as Dispatcher.HttpMethod, headers, body: body as Dispatcher.DispatchOptions['body'], dispatcher: proxied ? this.proxyAgent : this.agent });
    } catch (e) {
      if (errorCode(e) === ADDRESS_NOT_ALLOWED) throw errors.badRequest('address not allowed');
      throw onError(goError(method, url, e));
    }
  }

  /** An upgrade request to `url`, with Node's client (its 'upgrade' event hands over the raw socket). */
  upgradeRequest(url: URL, method: string, headers: IncomingHttpHeaders) {
    const opts = { method, headers, timeout: this.timeoutMs };
    if (url.protocol === 'https:') return httpsRequest(url, { ...opts, ...this.tls, rejectUnauthorized: Boolean(this.tls.ca) });
    return httpRequest(url, opts);
  }

  async close(): Promise<void> {
    await Promise.all([this.agent.close(), this.proxyAgent.close()]);
  }
}

const ADDRESS_NOT_ALLOWED = 'PORTCULLIS_ADDRESS_NOT_ALLOWED';

function errorCode(e: unknown): unknown {
  const cause = e instanceof Error && e.cause instanceof Error ? e.cause : e;
  return (cause as NodeJS.ErrnoException | undefined)?.code;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * The reference's IsProxyableHostname, done where the socket dials: a name is refused when any of
 * its addresses is loopback, link-local or unspecified, and the address dialled is one of those
 * checked (a check before the dial would leave a second lookup for DNS to answer differently).
 * IP literals are dialled without a lookup; callers check those first (`proxyableIP`).
 */
function proxyableLookup(hostname: string, options: LookupOptions, callback: LookupCallback): void {
  dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, []);
    if (addresses.length === 0 || addresses.some((a) => specialIPReasons(a.address).length > 0)) {
      return callback(Object.assign(new Error('address not allowed'), { code: ADDRESS_NOT_ALLOWED }), []);
    }
    if (options.all) return callback(null, addresses);
    callback(null, addresses[0].address, addresses[0].family);
  });
}

/** A failed request in Go's words (`Get "https://h:p/x": dial tcp h:p: connect: connection refused`), as the reference reports it. */
export function goError(method: string, url: URL, e: unknown): string {
  const cause = (e instanceof Error && e.cause instanceof Error ? e.cause : e) as NodeJS.ErrnoException;
  const verb = method.charAt(0) + method.slice(1).toLowerCase();
  const hostPort = url.host;
  let what: string;
  switch (cause?.code) {
    case 'ECONNREFUSED':
      what = `dial tcp ${hostPort}: connect: connection refused`;
      break;
    case 'UND_ERR_CONNECT_TIMEOUT':
    case 'ETIMEDOUT':
      what = `dial tcp ${hostPort}: i/o timeout`;
      break;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      what = `dial tcp: lookup ${url.hostname}: no such host`;
      break;
    case 'UND_ERR_HEADERS_TIMEOUT':
      what = 'net/http: timeout awaiting response headers';
      break;
    default:
      what = cause instanceof Error ? cause.message : String(cause);
  }
  return `${verb} ${JSON.stringify(url.href)}: ${what}`;
}

/** Hop-by-hop headers (RFC 7230 §6.1) and those the Connection header names. */
const HOP_BY_HOP = ['connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade'];

/** Request headers never sent on: the caller's credentials for this server, and impersonation. */
function isCredential(name: string): boolean {
  return name === 'authorization' || name.startsWith('impersonate-');
}

/**
 * The headers to send on (or back): hop-by-hop ones removed, and with `request`, the caller's credentials
 * too. `keepUpgrade` keeps Connection/Upgrade for an upgrade request, which needs them end to end.
 */
export function forwardHeaders(headers: IncomingHttpHeaders | Record<string, string | string[] | undefined>, request: boolean, keepUpgrade = false): Record<string, string | string[]> {
  const named = String(headers.connection ?? '').toLowerCase().split(',').map((s) => s.trim()).filter(Boolean);
  const drop = new Set(keepUpgrade ? HOP_BY_HOP.filter((h) => h !== 'connection' && h !== 'upgrade') : [...HOP_BY_HOP, ...named]);
  const out: Record<string, string | string[]> = Object.create(null) as Record<string, string | string[]>;
  for (const [k, v] of Object.entries(headers)) {
    const name = k.toLowerCase();
    if (v === undefined || drop.has(name) || name === 'host') continue;
    if (request && isCredential(name)) continue;
    // this hop answered the caller's expectation (it sent 100 Continue as it began reading the body)
    if (request && name === 'expect') continue;
    out[name] = v;
  }
  return out;
}
