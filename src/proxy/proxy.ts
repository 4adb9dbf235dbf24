// The auth proxy as two plain Node handlers (requests and connection upgrades): check the target,
// find the route (none: 404), authenticate and run every check of the route through the front door's
// steps (any denial: 401/403 as a Status), then forward with the identity headers and stream both ways.
import type { IncomingHttpHeaders } from 'node:http';
import type { ClientHttp2Stream } from 'node:http2';
import type { Duplex, Readable } from 'node:stream';
import type { UserInfo } from '../authn/types.ts';
import { randomUUID } from 'node:crypto';
import type { Authorizer, AuthzAttributes } from '../authz/types.ts';
import type { ProxyConfig, RouteSpec } from '../config/proxy.ts';
import { authenticateRequest, type RequestAuthenticator } from '../frontdoor/authenticate.ts';
import { denial } from '../frontdoor/authorize.ts';
import { userForLog, type DecisionLog } from './decision-log.ts';
import { errors, StatusError } from '../request/errors.ts';
import { inTurnBatch } from '../request/write-batch.ts';
import { addIdentity, downstreamHeaders, downstreamPairs, identityStrip, pairsToHeaders, upstreamPairs } from './headers.ts';
import { cleanTarget } from './path.ts';
import { attributesOf, hostOf, routeMatcher, type RouteMatcher } from './routes.ts';
import type { ExchangeHandler } from './h1-client.ts';
import type { InboundRequest, Reply } from './h1-server.ts';
import { openUpstream, type Upstream } from './upstream.ts';

export interface ProxyDeps {
  config: ProxyConfig;
  authenticator: RequestAuthenticator;
  authorizer: Authorizer;
  /** An authenticating proxy in front of this one is trusted (repeated X-Remote-Group headers). */
  proxyHeaders: boolean;
  log?: (msg: string) => void;
  /** Every decision as an OPA-style JSON line (--decision-log). */
  decisionLog?: DecisionLog;
  /** The local policy's revision for the decision log. */
  revision?: () => string | undefined;
  /** Names what would allow a denied check in the 403 (--explain-denials; absent: off). */
  explain?: (attrs: AuthzAttributes) => string | undefined;
}

export interface AuthProxy {
  handle(req: InboundRequest, res: Reply): void;
  upgrade(req: InboundRequest, socket: Duplex, head: Buffer): void;
  close(): void;
}

interface Admitted {
  route: RouteSpec;
  upstream: Upstream;
  /** Path and query to forward, as received. */
  target: string;
  user?: UserInfo;
}

/** JSON Status for API clients (and clients that say nothing), plain text for the rest. */
function wantsJson(accept: string | undefined): boolean {
  if (!accept) return true;
  return /json|^\s*\*\/\*\s*$/i.test(accept);
}

function statusBody(err: StatusError, accept: string | undefined): { type: string; body: string } {
  return wantsJson(accept)
    ? { type: 'application/json', body: JSON.stringify(err.toStatus()) }
    : { type: 'text/plain; charset=utf-8', body: `${err.message}\n` };
}

function cleanPathForLog(url: string | undefined): string {
  const u = url ?? '';
  const q = u.indexOf('?');
  return (q < 0 ? u : u.slice(0, q)).slice(0, 512);
}

function asStatus(e: unknown): StatusError {
  return e instanceof StatusError ? e : errors.internal(e instanceof Error ? e : new Error(String(e)));
}

/** A kept-alive connection the upstream closed as the request went out (closed unanswered, reset). */
function isStaleConnection(e: Error): boolean {
  const code = (e as { code?: string }).code;
  return code === 'ECONNRESET' || code === 'EPIPE';
}

export function createAuthProxy(deps: ProxyDeps): AuthProxy {
  const { config, authenticator, authorizer, proxyHeaders } = deps;
  const log = deps.log ?? (() => {});
  const upstreams = new Map<string, Upstream>();
  const routes: { matcher: RouteMatcher; upstream: Upstream }[] = config.routes.map((spec) => {
    const key = JSON.stringify(spec.upstream);
    const up = upstreams.get(key) ?? openUpstream(spec.upstream);
    upstreams.set(key, up);
    return { matcher: routeMatcher(spec), upstream: up };
  });
  const strip = identityStrip(config.identityHeaders);

  /** What the decision log says of a request, filled in as admit goes. */
  interface DecisionRecord {
    route: string;
    path: string;
    user?: UserInfo;
    checks: AuthzAttributes[];
    reason: string;
  }

  async function admit(req: InboundRequest, rec: DecisionRecord): Promise<Admitted> {
    const t = cleanTarget(req.url);
    if (t instanceof StatusError) { rec.reason = t.message; throw t; }
    rec.path = t.path;
    const host = hostOf(req.headers.host);
    for (const { matcher, upstream } of routes) {
      const rest = matcher.match(host, t.path);
      if (rest === undefined) continue;
      const route = matcher.spec;
      rec.route = route.name;
      const target = t.query ? `${t.rawPath}?${t.query}` : t.rawPath;
      if (route.ignore) { rec.reason = 'ignore route: no authentication, no authorization'; return { route, upstream, target }; }
      let user: UserInfo;
      try {
        user = await authenticateRequest(authenticator, req, proxyHeaders);
      } catch (e) {
        rec.reason = asStatus(e).message;
        throw e;
      }
      rec.user = user;
      const input = { method: req.method ?? 'GET', path: t.path, rest, query: t.query, headers: req.headers };
      // every check must pass; the first denial answers
      const reasons: string[] = [];
      for (const check of route.checks) {
        const attrs = attributesOf(check, input);
        if (attrs instanceof StatusError) { rec.reason = attrs.message; throw attrs; }
        rec.checks.push(attrs);
        const d = await authorizer.authorize(user, attrs);
        if (!d.allowed) {
          const hint = d.error ? undefined : deps.explain?.(attrs);
          const err = denial(user, attrs, [d.reason, hint].filter(Boolean).join('; '), d.error);
          rec.reason = d.error ? `authorization failed: ${d.error}` : err.message;
          throw err;
        }
        reasons.push(d.reason);
      }
      rec.reason = reasons.filter(Boolean).join('; ') || 'allowed';
      return { route, upstream, target, user };
    }
    // the routes are an allow-list
    rec.reason = 'no route';
    throw errors.notFound({ group: '', resource: '' }, t.path);
  }

  /** admit, and the decision's log line when there is a log. */
  function decide(req: InboundRequest): Promise<Admitted> {
    const dl = deps.decisionLog;
    const rec: DecisionRecord = { route: '', path: '', checks: [], reason: '' };
    if (!dl) return admit(req, rec);
    const start = process.hrtime.bigint();
    const write = (status: number): void => {
      const revision = deps.revision?.();
      dl.write({
        decision_id: randomUUID(),
        timestamp: new Date().toISOString(),
        path: rec.route,
        labels: { app: 'portcullis-proxy' },
        input: { method: req.method ?? '', path: rec.path, host: hostOf(req.headers.host), peer: req.socket.remoteAddress ?? '', ...(rec.user ? { user: userForLog(rec.user) } : {}), checks: rec.checks },
        result: { allowed: status < 300, status },
        reason: rec.reason,
        ...(revision ? { revision } : {}),
        metrics: { timer_decision_ns: Number(process.hrtime.bigint() - start) },
      });
    };
    return admit(req, rec).then((a) => { write(200); return a; }, (e: unknown) => { write(asStatus(e).code); throw e; });
  }

  /** The request's headers for the upstream, as name, value pairs (its Host is the upstream's, set by the client). */
  function outbound(req: InboundRequest, a: Admitted): string[] {
    const headers = upstreamPairs(req.headers, strip, true);
    if (a.user) addIdentity(headers, a.user, a.route.identity, config.identityHeaders);
    const prior = req.headers['x-forwarded-for'];
    const peer = req.socket.remoteAddress ?? '';
    headers.push('x-forwarded-for', prior ? `${Array.isArray(prior) ? prior.join(', ') : prior}, ${peer}` : peer);
    if (req.headers.host) headers.push('x-forwarded-host', req.headers.host);
    headers.push('x-forwarded-proto', 'encrypted' in req.socket ? 'https' : 'http');
    return headers;
  }

  function fail(res: Reply, req: InboundRequest, e: unknown): void {
    const err = asStatus(e);
    if (err.code >= 500) {
      const d = err.logDetail?.detail;
      // the path only: a query may carry secrets
      log(`portcullis proxy: ${req.method} ${cleanPathForLog(req.url)}: ${err.message}${d === undefined ? '' : `: ${d instanceof Error ? d.message : JSON.stringify(d)}`}`);
    }
    if (res.headersSent) { res.destroy(); return; }
    const { type, body } = statusBody(err, req.headers.accept);
    res.writeHead(err.code, { ...err.headers, 'content-type': type, 'content-length': Buffer.byteLength(body), 'x-content-type-options': 'nosniff' });
    res.end(body);
  }

  function handle(req: InboundRequest, res: Reply): void {
    decide(req).then((a) => forward(req, res, a, outbound(req, a), true), (e: unknown) => {
      // the body is not read: drain it so the connection can be reused
      req.body?.resume();
      fail(res, req, e);
    });
  }

  // A request without a body that failed on a reused keep-alive socket (closed by the upstream as we
  // sent) is sent once more on a fresh one, as browsers and Go's transport do.
  const RETRYABLE = new Set(['GET', 'HEAD', 'OPTIONS']);

  const upstreamFailed = (a: Admitted, e: Error): StatusError =>
    Object.assign(new StatusError(502, 'ServiceUnavailable', `the upstream of route ${a.route.name} failed`), { logDetail: { id: a.route.name, detail: e.message } });

  /**
   * The answer's body to the caller, with back-pressure from the caller's socket (`resume` restarts
   * the source once a write that reported a full buffer has drained). What arrives in one turn of the
   * event loop is written with the turn's other answers (write-batch.ts): a whole small answer as one
   * end(), a longer or streaming one as its first chunks, then chunk by chunk as they come.
   */
  function bodyWriter(res: Reply, resume: () => void): { data(c: Buffer): boolean; end(): void } {
    let held: Buffer[] | null = [];
    let ended = false;
    let scheduled = false;
    const send = (c: Buffer): boolean => {
      if (res.write(c)) return true;
      res.onDrain(resume);
      return false;
    };
    const release = (): void => {
      const chunks = held!;
      held = null;
      if (ended) res.end(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
      else for (const c of chunks) send(c);
    };
    const hold = (): void => {
      if (scheduled) return;
      scheduled = true;
      inTurnBatch(() => {
        try {
          release();
        } catch {
          res.destroy();
        }
      });
    };
    return {
      data(c) {
        if (!held) return send(c);
        held.push(c);
        hold();
        return true;
      },
      end() {
        if (!held) {
          res.end();
          return;
        }
        ended = true;
        hold();
      },
    };
  }

  /** A stream's body to the caller (an h2c upstream's answer): by hand rather than pipe(), without pipe's five listeners per request. */
  function relay(ur: Readable, res: Reply): void {
    const body = bodyWriter(res, () => ur.resume());
    ur.on('data', (c: Buffer) => { if (!body.data(c)) ur.pause(); });
    ur.on('end', () => body.end());
    ur.on('error', () => res.destroy());
  }


  /** To an h2c upstream: one stream of its session; the response's pseudo-headers dropped. */
  function forwardH2(req: InboundRequest, res: Reply, a: Admitted, headers: readonly string[]): void {
    let st: ClientHttp2Stream;
    try {
      st = a.upstream.stream!(req.method ?? 'GET', a.target, pairsToHeaders(headers));
    } catch (e) {
      fail(res, req, upstreamFailed(a, e as Error));
      return;
    }
    let aborted = false;
    st.on('response', (h) => {
      const plain = Object.create(null) as IncomingHttpHeaders;
      for (const k in h) if (k[0] !== ':') plain[k] = h[k] as string | string[];
      res.writeHead(Number(h[':status']) || 502, downstreamHeaders(plain));
      relay(st, res);
    });
    st.on('error', (e) => { if (!aborted) fail(res, req, upstreamFailed(a, e)); });
    res.onAbort(() => { aborted = true; st.destroy(); });
    if (req.body) req.body.pipe(st);
    else st.end();
  }

  /**
   * Upstream requests admitted in one turn of the event loop are sent together at its end
   * (write-batch.ts), so the upstream is woken once for them; a caller gone by then is not forwarded.
   */
  function forward(req: InboundRequest, res: Reply, a: Admitted, headers: readonly string[], mayRetry: boolean): void {
    inTurnBatch(() => {
      if (res.destroyed || req.destroyed) return;
      try {
        forwardNow(req, res, a, headers, mayRetry);
      } catch (e) {
        fail(res, req, upstreamFailed(a, e as Error));
      }
    });
  }

  function forwardNow(req: InboundRequest, res: Reply, a: Admitted, headers: readonly string[], mayRetry: boolean): void {
    if (a.upstream.stream) forwardH2(req, res, a, headers);
    else forwardPooled(req, res, a, headers, mayRetry);
  }

  /**
   * Through the upstream's connection pool (h1-client.ts): the same relay as node:http's (the answer's chunks of one
   * turn written with the turn's other answers, back-pressure from the caller's socket), the same
   * one retry of a bodiless request whose kept-alive connection the upstream closed as it was used.
   */
  function forwardPooled(req: InboundRequest, res: Reply, a: Admitted, headers: readonly string[], mayRetry: boolean): void {
    const { client, base } = a.upstream.pool!;
    const method = req.method ?? 'GET';
    let abortUpstream: ((reason?: Error) => void) | undefined;
    let aborted = false;
    let answered = false;
    let resumeUpstream: (() => void) | undefined;
    const body = bodyWriter(res, () => resumeUpstream?.());
    // the caller went away: stop the upstream request too (its error is ours, not the upstream's)
    const onClose = (): void => {
      if (res.writableFinished) return;
      aborted = true;
      abortUpstream?.(new Error('the caller closed the connection'));
    };
    res.onAbort(onClose);
    const handler: ExchangeHandler = {
      onConnect: (abort) => {
        abortUpstream = abort;
        if (aborted) abort(new Error('the caller closed the connection'));
      },
      onHeaders: (status, raw, resume) => {
        answered = true;
        resumeUpstream = resume;
        res.writeHead(status, downstreamPairs(raw));
      },
      onData: (chunk) => body.data(chunk),
      onComplete: () => body.end(),
      onError: (e) => {
        if (aborted) return;
        if (answered) { res.destroy(); return; }
        if (mayRetry && isStaleConnection(e) && RETRYABLE.has(method) && !req.body) {
          forwardPooled(req, res, a, headers, false);
          return;
        }
        fail(res, req, upstreamFailed(a, e));
      },
    };
    client.dispatch({ method, path: base + a.target, headers, body: req.body, contentLength: req.contentLength }, handler);
  }

  function refuseUpgrade(socket: Duplex, req: InboundRequest, e: unknown): void {
    const err = asStatus(e);
    const { type, body } = statusBody(err, req.headers.accept);
    const extra = Object.entries(err.headers).map(([k, v]) => `${k}: ${v}\r\n`).join('');
    socket.end(`HTTP/1.1 ${err.code} ${err.reason}\r\ncontent-type: ${type}\r\ncontent-length: ${Buffer.byteLength(body)}\r\n${extra}connection: close\r\n\r\n${body}`);
  }

  function upgrade(req: InboundRequest, socket: Duplex, head: Buffer): void {
    socket.on('error', () => socket.destroy());
    decide(req).then((a) => {
      if (a.upstream.stream) { refuseUpgrade(socket, req, new StatusError(502, 'ServiceUnavailable', `the upstream of route ${a.route.name} speaks HTTP/2 (h2c): upgrades are not relayed`)); return; }
      const headers = pairsToHeaders(outbound(req, a));
      headers.host = a.upstream.host;
      headers.connection = 'Upgrade';
      if (req.headers.upgrade) headers.upgrade = req.headers.upgrade;
      const up = a.upstream.request(req.method ?? 'GET', a.target, headers);
      up.on('upgrade', (ur, us, uhead) => {
        const lines = [`HTTP/1.1 101 Switching Protocols`];
        for (let i = 0; i < ur.rawHeaders.length; i += 2) lines.push(`${ur.rawHeaders[i]}: ${ur.rawHeaders[i + 1]}`);
        socket.write(`${lines.join('\r\n')}\r\n\r\n`);
        if (uhead.length) socket.write(uhead);
        if (head.length) us.write(head);
        us.on('error', () => socket.destroy());
        socket.on('close', () => us.destroy());
        us.on('close', () => socket.destroy());
        us.pipe(socket);
        socket.pipe(us);
      });
      up.on('response', (ur) => {
        // the upstream declined the upgrade: relay its answer and close
        const lines = [`HTTP/1.1 ${ur.statusCode ?? 502} ${ur.statusMessage ?? ''}`];
        for (let i = 0; i < ur.rawHeaders.length; i += 2) {
          if (!/^(connection|transfer-encoding|keep-alive)$/i.test(ur.rawHeaders[i])) lines.push(`${ur.rawHeaders[i]}: ${ur.rawHeaders[i + 1]}`);
        }
        socket.write(`${lines.join('\r\n')}\r\nconnection: close\r\n\r\n`);
        ur.pipe(socket);
      });
      up.on('error', () => refuseUpgrade(socket, req, new StatusError(502, 'ServiceUnavailable', `the upstream of route ${a.route.name} failed`)));
      up.end();
    }, (e: unknown) => refuseUpgrade(socket, req, e));
  }

  return {
    handle,
    upgrade,
    close() {
      for (const u of upstreams.values()) u.close();
    },
  };
}
