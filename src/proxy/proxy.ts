// The auth proxy as two plain Node handlers (requests and connection upgrades): check the target,
// find the route (none: 404), authenticate and run every check of the route through the front door's
// steps (any denial: 401/403 as a Status), then forward with the identity headers and stream both ways.
import type { IncomingHttpHeaders } from 'node:http';
import type { ClientHttp2Stream } from 'node:http2';
import type { Duplex, Readable } from 'node:stream';
import type { Settled, UserInfo } from '../authn/types.ts';
import { randomUUID } from 'node:crypto';
import type { Authorizer, AuthzAttributes, Decision } from '../authz/types.ts';
import type { ProxyConfig, RouteSpec } from '../config/proxy.ts';
import { authenticateRequest, type RequestAuthenticator } from '../frontdoor/authenticate.ts';
import { denial } from '../frontdoor/authorize.ts';
import { userForLog, type DecisionLog } from './decision-log.ts';
import { errors, StatusError } from '../request/errors.ts';
import { inTurnBatch, type BatchWrite } from '../request/write-batch.ts';
import { addIdentity, downstreamHeaders, downstreamPairs, identityStrip, pairsToHeaders, upstreamPairs } from './headers.ts';
import { cleanTarget } from './path.ts';
import { attributesOf, hostOf, routeMatcher, type CheckInput, type RouteMatcher } from './routes.ts';
import type { ExchangeControl, ExchangeHandler } from './h1-client.ts';
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

/**
 * The answer's body to the caller, with back-pressure from the caller's socket (the source's
 * `resume` restarts it once a write that reported a full buffer has drained). What arrives in one
 * turn of the event loop is written with the turn's other answers (write-batch.ts): a whole small
 * answer as one end(), a longer or streaming one as its first chunks, then chunk by chunk as they come.
 */
class BodyWriter implements BatchWrite {
  private held: Buffer[] | null = [];
  private ended = false;
  private scheduled = false;

  constructor(
    private readonly res: Reply,
    private readonly source: { resume(): void },
  ) {}

  data(c: Buffer): boolean {
    if (!this.held) return this.send(c);
    this.held.push(c);
    this.hold();
    return true;
  }

  end(): void {
    if (!this.held) {
      this.res.end();
      return;
    }
    this.ended = true;
    this.hold();
  }

  private send(c: Buffer): boolean {
    if (this.res.write(c)) return true;
    this.res.onDrain(() => this.source.resume());
    return false;
  }

  private hold(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    inTurnBatch(this);
  }

  writeInBatch(): void {
    try {
      this.release();
    } catch {
      this.res.destroy();
    }
  }

  private release(): void {
    const chunks = this.held!;
    this.held = null;
    if (this.ended) this.res.end(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
    else for (const c of chunks) this.send(c);
  }
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
    /** Each passed check's reason, joined into `reason` when all passed. */
    reasons: string[];
    reason: string;
  }

  /**
   * The route, the user and every check's decision; a StatusError thrown (or the promise rejected)
   * for the answer that refuses. Settled at once when authentication and the decisions are (a token
   * file, compiled policies, cached decisions): no promise and no microtask turn per request then.
   */
  function admit(req: InboundRequest, rec: DecisionRecord | undefined): Settled<Admitted> {
    const t = cleanTarget(req.url);
    if (t instanceof StatusError) { if (rec) rec.reason = t.message; throw t; }
    if (rec) rec.path = t.path;
    const host = hostOf(req.headers.host);
    for (const { matcher, upstream } of routes) {
      const rest = matcher.match(host, t.path);
      if (rest === undefined) continue;
      const route = matcher.spec;
      if (rec) rec.route = route.name;
      const target = t.query ? `${t.rawPath}?${t.query}` : t.rawPath;
      if (route.ignore) { if (rec) rec.reason = 'ignore route: no authentication, no authorization'; return { route, upstream, target }; }
      let user: Settled<UserInfo>;
      try {
        user = authenticateRequest(authenticator, req, proxyHeaders);
      } catch (e) {
        return unauthenticated(rec, e);
      }
      const admitted: Admitted = { route, upstream, target };
      const input: CheckInput = { method: req.method, path: t.path, rest, query: t.query, request: req };
      if (user instanceof Promise) return user.then((u) => authorized(admitted, u, input, rec), (e: unknown) => unauthenticated(rec, e));
      return authorized(admitted, user, input, rec);
    }
    // the routes are an allow-list
    if (rec) rec.reason = 'no route';
    throw errors.notFound({ group: '', resource: '' }, t.path);
  }

  function unauthenticated(rec: DecisionRecord | undefined, e: unknown): never {
    if (rec) rec.reason = asStatus(e).message;
    throw e;
  }

  /** Every check of the route, in order; the first denial answers. */
  function authorized(a: Admitted, user: UserInfo, input: CheckInput, rec: DecisionRecord | undefined, from = 0): Settled<Admitted> {
    a.user = user;
    if (rec) rec.user = user;
    const checks = a.route.checks;
    for (let i = from; i < checks.length; i++) {
      const attrs = attributesOf(checks[i], input);
      if (attrs instanceof StatusError) { if (rec) rec.reason = attrs.message; throw attrs; }
      rec?.checks.push(attrs);
      const d = authorizer.authorize(user, attrs);
      if (d instanceof Promise) {
        return d.then((decided) => {
          judge(user, attrs, decided, rec);
          return authorized(a, user, input, rec, i + 1);
        });
      }
      judge(user, attrs, d, rec);
    }
    if (rec) rec.reason = rec.reasons.filter(Boolean).join('; ') || 'allowed';
    return a;
  }

  /** One check's decision: a denial (or an authorizer's failure) throws the 403 (or 500). */
  function judge(user: UserInfo, attrs: AuthzAttributes, d: Decision, rec: DecisionRecord | undefined): void {
    if (!d.allowed) {
      const hint = d.error ? undefined : deps.explain?.(attrs);
      const err = denial(user, attrs, [d.reason, hint].filter(Boolean).join('; '), d.error);
      if (rec) rec.reason = d.error ? `authorization failed: ${d.error}` : err.message;
      throw err;
    }
    rec?.reasons.push(d.reason);
  }

  /** admit, and the decision's log line when there is a log. */
  function decide(req: InboundRequest): Settled<Admitted> {
    const dl = deps.decisionLog;
    // the record is kept only for the log: without one, nothing of it is built per request
    if (!dl) return admit(req, undefined);
    const rec: DecisionRecord = { route: '', path: '', checks: [], reasons: [], reason: '' };
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
    const logged = (a: Admitted): Admitted => { write(200); return a; };
    const refused = (e: unknown): never => { write(asStatus(e).code); throw e; };
    let a: Settled<Admitted>;
    try {
      a = admit(req, rec);
    } catch (e) {
      return refused(e);
    }
    return a instanceof Promise ? a.then(logged, refused) : logged(a);
  }

  /** decide, then `go` with the admission or `refuse` with the error, synchronously when decide settled at once. */
  function decided(req: InboundRequest, go: (a: Admitted) => void, refuse: (e: unknown) => void): void {
    let a: Settled<Admitted>;
    try {
      a = decide(req);
    } catch (e) {
      refuse(e);
      return;
    }
    if (a instanceof Promise) a.then(go, refuse);
    else go(a);
  }

  /** The request's headers for the upstream, as name, value pairs (its Host is the upstream's, set by the client). */
  function outbound(req: InboundRequest, a: Admitted): string[] {
    const headers = upstreamPairs(req.headers, strip, true);
    if (a.user) addIdentity(headers, a.user, a.route.identity, config.identityHeaders);
    const prior = req.headers['x-forwarded-for'];
    const peer = req.socket.remoteAddress ?? '';
    headers.push('x-forwarded-for', prior ? `${Array.isArray(prior) ? prior.join(', ') : prior}, ${peer}` : peer);
    if (req.headers.host) headers.push('x-forwarded-host', req.headers.host);
    // a property read, not `in`: `in` walks the socket's prototype chain in the runtime on every request
    headers.push('x-forwarded-proto', (req.socket as { encrypted?: boolean }).encrypted === true ? 'https' : 'http');
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
    let a: Settled<Admitted>;
    try {
      a = decide(req);
    } catch (e) {
      refused(req, res, e);
      return;
    }
    // settled at once: no callbacks made for this request
    if (a instanceof Promise) a.then((x) => forward(req, res, x, outbound(req, x), true), (e: unknown) => refused(req, res, e));
    else forward(req, res, a, outbound(req, a), true);
  }

  function refused(req: InboundRequest, res: Reply, e: unknown): void {
    // the body is not forwarded: dropped, or the connection closed after the answer (a large one)
    req.discardBody();
    fail(res, req, e);
  }

  // A request without a body that failed on a reused keep-alive socket (closed by the upstream as we
  // sent) is sent once more on a fresh one, as browsers and Go's transport do.
  const RETRYABLE = new Set(['GET', 'HEAD', 'OPTIONS']);

  const upstreamFailed = (a: Admitted, e: Error): StatusError =>
    Object.assign(new StatusError(502, 'ServiceUnavailable', `the upstream of route ${a.route.name} failed`), { logDetail: { id: a.route.name, detail: e.message } });

  /** A stream's body to the caller (an h2c upstream's answer): by hand rather than pipe(), without pipe's five listeners per request. */
  function relay(ur: Readable, res: Reply): void {
    const body = new BodyWriter(res, { resume: () => ur.resume() });
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
    if (!a.upstream.stream) {
      inTurnBatch(new PooledExchange(req, res, a, headers, mayRetry));
      return;
    }
    inTurnBatch(() => {
      if (res.destroyed || req.destroyed) return;
      try {
        forwardH2(req, res, a, headers);
      } catch (e) {
        fail(res, req, upstreamFailed(a, e as Error));
      }
    });
  }

  /**
   * Through the upstream's connection pool (h1-client.ts): the answer relayed by a BodyWriter (the
   * chunks of one turn written with the turn's other answers, back-pressure from the caller's socket),
   * and one retry of a bodiless request whose kept-alive connection the upstream closed as it was used.
   * One object per request (sent from the turn's batch, then the pool's handler) rather than a closure
   * per event.
   */
  class PooledExchange implements ExchangeHandler, BatchWrite {
    private control: ExchangeControl | undefined;
    private aborted = false;
    private answered = false;
    private readonly body: BodyWriter;

    constructor(
      private readonly req: InboundRequest,
      private readonly res: Reply,
      private readonly a: Admitted,
      private readonly headers: readonly string[],
      private readonly mayRetry: boolean,
    ) {
      this.body = new BodyWriter(res, this);
      // the caller went away: stop the upstream request too (its error is ours, not the upstream's)
      res.onAbort(() => this.callerGone());
    }

    /** In the turn's batch: sent, unless the caller is already gone. */
    writeInBatch(): void {
      const { req, res } = this;
      if (res.destroyed || req.destroyed) return;
      try {
        this.dispatch();
      } catch (e) {
        fail(res, req, upstreamFailed(this.a, e as Error));
      }
    }

    dispatch(): void {
      const { req, a } = this;
      const { client, base } = a.upstream.pool!;
      client.dispatch({ method: req.method, path: base + a.target, headers: this.headers, body: req.body, contentLength: req.contentLength }, this);
    }

    private callerGone(): void {
      if (this.res.writableFinished) return;
      this.aborted = true;
      this.control?.abort(new Error('the caller closed the connection'));
    }

    /** The caller's socket drained: read on from the upstream. */
    resume(): void {
      this.control?.resume();
    }

    onConnect(control: ExchangeControl): void {
      this.control = control;
      if (this.aborted) control.abort(new Error('the caller closed the connection'));
    }

    onHeaders(status: number, raw: readonly string[]): void {
      this.answered = true;
      this.res.writeHead(status, downstreamPairs(raw));
    }

    onData(chunk: Buffer): boolean {
      return this.body.data(chunk);
    }

    onComplete(): void {
      this.body.end();
    }

    onError(e: Error): void {
      if (this.aborted) return;
      const { req, res, a } = this;
      if (this.answered) { res.destroy(); return; }
      if (this.mayRetry && isStaleConnection(e) && RETRYABLE.has(req.method) && !req.body) {
        new PooledExchange(req, res, a, this.headers, false).dispatch();
        return;
      }
      fail(res, req, upstreamFailed(a, e));
    }
  }

  function refuseUpgrade(socket: Duplex, req: InboundRequest, e: unknown): void {
    const err = asStatus(e);
    const { type, body } = statusBody(err, req.headers.accept);
    const extra = Object.entries(err.headers).map(([k, v]) => `${k}: ${v}\r\n`).join('');
    socket.end(`HTTP/1.1 ${err.code} ${err.reason}\r\ncontent-type: ${type}\r\ncontent-length: ${Buffer.byteLength(body)}\r\n${extra}connection: close\r\n\r\n${body}`);
  }

  function upgrade(req: InboundRequest, socket: Duplex, head: Buffer): void {
    socket.on('error', () => socket.destroy());
    decided(req, (a) => {
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
