// The audit log: for each request the policy's level decides, one JSON event per stage, as the
// reference writes them (audit.k8s.io/v1 Event). Two filters: `received` sits right after the front
// door (the user is known) and writes RequestReceived (and, for long-running requests, ResponseStarted
// as the handler takes over); `complete`, outermost, writes ResponseComplete with the code the client
// got, and the earlier stages too for requests the front door refused (401/403).
import { randomUUID } from 'node:crypto';
import type Koa from 'koa';
import type { AuditFile } from '../../observability/audit-file.ts';
import { auditLevel, type AuditLevel, type AuditPolicy, type AuditStage } from '../../observability/audit-policy.ts';
import type { RequestState } from '../state.ts';
import { requestBodyOf } from './body.ts';
import { jsonCodec } from '../../codec/json.ts';
import { wholeBody } from '../../codec/codec.ts';
import { parseJson } from '../../api/safe-json.ts';

type Ctx = Koa.ParameterizedContext<RequestState>;

interface AuditRecord {
  id: string;
  received: string;
  level: AuditLevel;
  omit: ReadonlySet<AuditStage>;
  /** The policy has been asked (after the front door, or at the end for a refused request). */
  settled: boolean;
  written: Set<AuditStage>;
}

/** Request and response bodies larger than this (as JSON) are left out of the events. */
const MAX_LOGGED_BODY = 256 * 1024;
/** Lists and tables are walked this deep for Secrets; deeper nesting is not an API object. */
const MAX_REDACT_DEPTH = 4;

type Json = Record<string, unknown>;
const isObject = (x: unknown): x is Json => typeof x === 'object' && x !== null && !Array.isArray(x);

/**
 * Credentials and Secret data never reach the audit log, at any level: a copy without them (the
 * object may be the store's own, frozen). A Secret is known by its kind (lists, tables and Status
 * details carry several kinds) or, for a request body without one, by the resource addressed.
 */
function redact(resource: string, subresource: string, obj: unknown, depth = 0): unknown {
  if (!isObject(obj) || depth > MAX_REDACT_DEPTH) return obj;
  const o: Json = { ...obj };
  if (Array.isArray(o.items)) o.items = o.items.map((i) => redact(resource, subresource, i, depth + 1));
  // a Table's rows may carry their objects (includeObject=Object)
  if (Array.isArray(o.rows)) o.rows = o.rows.map((r) => (isObject(r) && r.object !== undefined ? { ...r, object: redact(resource, subresource, r.object, depth + 1) } : r));
  // items of a list (and a request body) may come without a kind: then the resource tells
  const isSecret = o.kind === 'Secret' || (o.kind === undefined && resource === 'secrets' && !subresource);
  if (isSecret) {
    delete o.data;
    delete o.stringData;
  }
  if (resource === 'tokenreviews' && isObject(o.spec)) o.spec = { ...o.spec, token: undefined };
  if (subresource === 'token' && isObject(o.status)) o.status = { ...o.status, token: undefined };
  return o;
}

/**
 * The object a response carried, for RequestResponse events: kept only for requests whose level
 * asks for it (the audit filter registers them), so other responses pay one WeakMap lookup.
 */
const responseObjects = new WeakMap<object, { object?: unknown }>();

/** Called by the response writer with the object it encodes (src/server/respond.ts). */
export function noteResponseObject(req: object, object: unknown): void {
  const slot = responseObjects.get(req);
  if (slot) slot.object = object;
}

/**
 * A response object as the client got it in JSON (the JSON codec: list bodies encode themselves,
 * their fields are not the wire form), or undefined when larger than the bound.
 */
function wireForm(value: unknown): unknown {
  try {
    const bytes = wholeBody(jsonCodec.encode(value, false), MAX_LOGGED_BODY);
    return bytes ? JSON.parse(bytes.toString('utf8')) : undefined;
  } catch {
    return undefined;
  }
}

/** The query's values under names that may carry a credential are withheld. */
function requestURI(ctx: Ctx): string {
  if (!ctx.querystring) return ctx.path;
  const q = new URLSearchParams(ctx.querystring);
  for (const k of [...q.keys()]) if (/token|password|secret|credential/i.test(k)) q.set(k, '[redacted]');
  return `${ctx.path}?${q.toString()}`;
}

export function auditFilters(policy: AuditPolicy, file: AuditFile): { complete: Koa.Middleware<RequestState>; received: Koa.Middleware<RequestState> } {
  const records = new WeakMap<object, AuditRecord>();

  const settle = (ctx: Ctx, rec: AuditRecord): void => {
    const attrs = ctx.state.resolved?.attrs;
    const user = ctx.state.user;
    const { level, omit } = auditLevel(policy, {
      user: user?.name ?? '',
      groups: user?.groups ?? [],
      verb: attrs?.verb ?? ctx.method.toLowerCase(),
      isResourceRequest: !!attrs?.isResourceRequest,
      apiGroup: attrs?.apiGroup ?? '',
      resource: attrs?.resource ?? '',
      subresource: attrs?.subresource ?? '',
      namespace: attrs?.namespace ?? '',
      path: ctx.path,
    });
    rec.level = level;
    rec.omit = omit;
    rec.settled = true;
    if (level === 'RequestResponse') responseObjects.set(ctx.req, {});
  };

  const write = (ctx: Ctx, rec: AuditRecord, stage: AuditStage): void => {
    if (rec.level === 'None' || rec.omit.has(stage) || rec.written.has(stage)) return;
    rec.written.add(stage);
    const attrs = ctx.state.resolved?.attrs;
    const user = ctx.state.user;
    const event: Record<string, unknown> = {
      kind: 'Event',
      apiVersion: 'audit.k8s.io/v1',
      level: rec.level,
      auditID: rec.id,
      stage,
      requestURI: requestURI(ctx),
      verb: attrs?.verb ?? ctx.method.toLowerCase(),
      user: user ? { username: user.name, ...(user.uid ? { uid: user.uid } : {}), groups: user.groups } : {},
      sourceIPs: [ctx.req.socket.remoteAddress ?? ''],
      userAgent: ctx.get('User-Agent') || undefined,
    };
    if (attrs?.isResourceRequest) {
      event.objectRef = {
        resource: attrs.resource,
        namespace: attrs.namespace || undefined,
        name: attrs.name || undefined,
        apiGroup: attrs.apiGroup || undefined,
        apiVersion: attrs.apiVersion || undefined,
        subresource: attrs.subresource || undefined,
      };
    }
    if (stage !== 'RequestReceived') event.responseStatus = { metadata: {}, code: ctx.status };
    if (rec.level !== 'Metadata' && stage !== 'RequestReceived') {
      const raw = requestBodyOf(ctx.req);
      if (raw && raw.length <= MAX_LOGGED_BODY && /json/i.test(ctx.get('Content-Type') || 'json')) {
        try {
          // behind the body nesting limit: a body refused as too deep is still audited, without it
          event.requestObject = redact(attrs?.resource ?? '', attrs?.subresource ?? '', parseJson(raw.toString('utf8')));
        } catch {
          // not JSON, or nested too deep: left out
        }
      }
    }
    if (rec.level === 'RequestResponse' && stage === 'ResponseComplete') {
      const object = responseObjects.get(ctx.req)?.object;
      if (object !== undefined) event.responseObject = redact(attrs?.resource ?? '', attrs?.subresource ?? '', wireForm(object));
    }
    event.requestReceivedTimestamp = rec.received;
    event.stageTimestamp = new Date().toISOString();
    try {
      file.write(event);
    } catch {
      // an object that cannot be encoded never costs the event: it goes without them
      delete event.requestObject;
      delete event.responseObject;
      file.write(event);
    }
  };

  const complete: Koa.Middleware<RequestState> = async (ctx, next) => {
    const id = randomUUID();
    ctx.set('Audit-Id', id);
    const rec: AuditRecord = { id, received: new Date().toISOString(), level: 'None', omit: new Set(), settled: false, written: new Set() };
    records.set(ctx.req, rec);
    try {
      await next();
    } finally {
      if (!rec.settled) {
        // refused at the front door: the policy decides on what is known (the user, when identified)
        settle(ctx, rec);
        write(ctx, rec, 'RequestReceived');
      }
      write(ctx, rec, 'ResponseComplete');
    }
  };

  const received: Koa.Middleware<RequestState> = async (ctx, next) => {
    const rec = records.get(ctx.req);
    if (rec) {
      settle(ctx, rec);
      write(ctx, rec, 'RequestReceived');
      if (ctx.state.longRunning) write(ctx, rec, 'ResponseStarted');
    }
    await next();
  };

  return { complete, received };
}
