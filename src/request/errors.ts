// Every failure becomes the API's Status object. Handlers throw StatusError; the error middleware
// renders it in the negotiated format. Message templates follow the reference server's errors.go.
import { randomUUID } from 'node:crypto';

export interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

export interface Status {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, never> | { selfLink?: string; resourceVersion?: string };
  status: 'Success' | 'Failure';
  message?: string;
  reason?: string;
  details?: StatusDetails;
  code?: number;
}

/** Identifies a resource in messages: `pods` for core, `deployments.extensions` otherwise. */
export interface GroupResource {
  group: string;
  resource: string;
}

export function groupResourceString(gr: GroupResource): string {
  return gr.group ? `${gr.resource}.${gr.group}` : gr.resource;
}

export class StatusError extends Error {
  readonly code: number;
  readonly reason: string;
  readonly details?: StatusDetails;
  /** Extra response headers (Retry-After, WWW-Authenticate). */
  readonly headers: Record<string, string>;
  /** What went wrong, for the server log only (never rendered), under the id the message names. */
  logDetail?: { id: string; detail: unknown };

  constructor(code: number, reason: string, message: string, details?: StatusDetails, headers: Record<string, string> = {}) {
    super(message);
    this.code = code;
    this.reason = reason;
    this.details = details;
    this.headers = headers;
    if (details?.retryAfterSeconds && details.retryAfterSeconds > 0) {
      this.headers['Retry-After'] = String(details.retryAfterSeconds);
    }
  }

  toStatus(): Status {
    const s: Status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: this.message };
    if (this.reason) s.reason = this.reason;
    if (this.details && Object.keys(this.details).length > 0) s.details = this.details;
    s.code = this.code;
    return s;
  }
}

function grDetails(gr: GroupResource, name?: string): StatusDetails {
  const d: StatusDetails = {};
  if (name) d.name = name;
  if (gr.group) d.group = gr.group;
  d.kind = gr.resource;
  return d;
}

export const errors = {
  notFound(gr: GroupResource, name: string): StatusError {
    return new StatusError(404, 'NotFound', `${groupResourceString(gr)} "${name}" not found`, grDetails(gr, name));
  },
  alreadyExists(gr: GroupResource, name: string): StatusError {
    return new StatusError(409, 'AlreadyExists', `${groupResourceString(gr)} "${name}" already exists`, grDetails(gr, name));
  },
  conflict(gr: GroupResource, name: string, why: string): StatusError {
    return new StatusError(409, 'Conflict', `Operation cannot be fulfilled on ${groupResourceString(gr)} "${name}": ${why}`, grDetails(gr, name));
  },
  optimisticLock(gr: GroupResource, name: string): StatusError {
    return errors.conflict(gr, name, 'the object has been modified; please apply your changes to the latest version and try again');
  },
  /** `kind` is the GroupKind string (`Pod`, `Deployment.extensions`). */
  invalid(group: string, kind: string, name: string, causes: FieldError[]): StatusError {
    const gk = group ? `${kind}.${group}` : kind;
    const uniq = [...new Set(causes.map(fieldErrorString))];
    const agg = uniq.length === 1 ? uniq[0] : `[${uniq.join(', ')}]`;
    const d: StatusDetails = { name: name || undefined, group: group || undefined, kind, causes: causes.map(toCause) };
    if (!d.name) delete d.name;
    if (!d.group) delete d.group;
    return new StatusError(422, 'Invalid', `${gk} "${name}" is invalid: ${agg}`, d);
  },
  /** 422 without field causes: the request is well formed but cannot be applied (a patch that fails). */
  unprocessable(message: string): StatusError {
    return new StatusError(422, 'Invalid', message);
  },
  badRequest(message: string): StatusError {
    return new StatusError(400, 'BadRequest', message);
  },
  unauthorized(message = 'Unauthorized', headers: Record<string, string> = {}): StatusError {
    return new StatusError(401, 'Unauthorized', message, undefined, headers);
  },
  forbidden(gr: GroupResource, name: string, why: string): StatusError {
    const subject = name ? `${groupResourceString(gr)} "${name}"` : groupResourceString(gr);
    return new StatusError(403, 'Forbidden', `${subject} is forbidden: ${why}`, grDetails(gr, name));
  },
  /** A non-resource path refused (`/healthz`, `/apis`): no group-resource to name. */
  forbiddenPath(why: string): StatusError {
    return new StatusError(403, 'Forbidden', `forbidden: ${why}`, {});
  },
  methodNotSupported(gr: GroupResource, action: string): StatusError {
    return new StatusError(405, 'MethodNotAllowed', `${action} is not supported on resources of kind "${groupResourceString(gr)}"`, grDetails(gr));
  },
  methodNotAllowed(): StatusError {
    return new StatusError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource', {});
  },
  routeNotFound(): StatusError {
    return new StatusError(404, 'NotFound', 'the server could not find the requested resource', {});
  },
  gone(message: string): StatusError {
    return new StatusError(410, 'Gone', message);
  },
  expired(message: string): StatusError {
    return new StatusError(410, 'Expired', message);
  },
  notAcceptable(accepted: readonly string[]): StatusError {
    return new StatusError(406, 'NotAcceptable', `only the following media types are accepted: ${accepted.join(', ')}`);
  },
  unsupportedMediaType(contentType: string, accepted: readonly string[]): StatusError {
    return new StatusError(415, 'UnsupportedMediaType', `the body of the request was in an unknown format (${contentType}) - accepted media types include: ${accepted.join(', ')}`);
  },
  /** A PATCH body in a media type that is no patch type (the reference words it without the content type). */
  unsupportedPatchType(accepted: readonly string[]): StatusError {
    return new StatusError(415, 'UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`);
  },
  /** 413; `detail` says what was too large, e.g. `limit is 3145728`. */
  tooLarge(detail: string): StatusError {
    return new StatusError(413, 'RequestEntityTooLarge', `Request entity too large: ${detail}`);
  },
  tooManyRequests(): StatusError {
    return new StatusError(429, 'TooManyRequests', 'Too many requests, please try again later.', { retryAfterSeconds: 1 });
  },
  /**
   * 500 that says nothing about `err`: exception text can carry paths, addresses and internals. The
   * error middleware logs `err` under the correlation id the client is given.
   */
  internal(err: unknown, id: string = randomUUID()): StatusError {
    const msg = `internal error (correlation id ${id})`;
    const e = new StatusError(500, 'InternalError', `Internal error occurred: ${msg}`, { causes: [{ message: msg }] });
    e.logDetail = { id, detail: err };
    return e;
  },
  /** `message` replaces the generic "could not be completed" text (a pod whose account has no token yet). */
  serverTimeout(gr: GroupResource, op: string, retryAfter = 1, message?: string): StatusError {
    const text = message ?? `The ${op} operation against ${groupResourceString(gr)} could not be completed at this time, please try again.`;
    return new StatusError(500, 'ServerTimeout', text, { ...grDetails(gr, op), retryAfterSeconds: retryAfter });
  },
  timeout(message: string, retryAfter = 1): StatusError {
    return new StatusError(504, 'Timeout', `Timeout: ${message}`, { retryAfterSeconds: retryAfter });
  },
  /** `retryAfterSeconds` adds the Retry-After header and the Status detail. */
  serviceUnavailable(message: string, retryAfterSeconds?: number): StatusError {
    return new StatusError(503, 'ServiceUnavailable', message, retryAfterSeconds === undefined ? undefined : { retryAfterSeconds });
  },
  /** 417: an `Expect` header other than `100-continue` (the reason stays empty, as for 431). */
  unmetExpectation(): StatusError {
    return new StatusError(417, '', 'Expectation Failed: the only expectation this server meets is 100-continue');
  },
  /**
   * A request the HTTP/1.1 parser refused before any handler saw it, by the parser's error code
   * (llhttp's `HPE_*`, Node's `ERR_HTTP_REQUEST_TIMEOUT`); undefined for anything else (a reset
   * connection, a TLS failure), which gets no answer. `headerLimit` is the parser's limit in bytes.
   * The texts are fixed: nothing of the refused bytes is echoed.
   */
  unparsedRequest(code: string | undefined, headerLimit: number): StatusError | undefined {
    switch (code) {
      case undefined:
        return undefined;
      case 'HPE_HEADER_OVERFLOW':
        // no reason of the API's own fits; as for the other codes it has none for, the reason stays empty
        return new StatusError(431, '', `Request Header Fields Too Large: the request's header fields exceed ${headerLimit} bytes`);
      case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
        return new StatusError(413, 'RequestEntityTooLarge', 'Request entity too large: the chunk extensions of the request body are too long');
      case 'ERR_HTTP_REQUEST_TIMEOUT':
        return new StatusError(408, 'Timeout', 'Timeout: the request did not arrive in time');
      case 'HPE_INVALID_METHOD':
        return errors.methodNotAllowed();
      default:
        return code.startsWith('HPE_') ? errors.badRequest('the request is not well-formed HTTP/1.1') : undefined;
    }
  },
};

// ---- field errors (validation) ----

export type FieldErrorType =
  | 'FieldValueNotFound'
  | 'FieldValueRequired'
  | 'FieldValueDuplicate'
  | 'FieldValueInvalid'
  | 'FieldValueNotSupported'
  | 'FieldValueForbidden'
  | 'FieldValueTooLong'
  | 'InternalError';

export interface FieldError {
  type: FieldErrorType;
  field: string;
  value?: unknown;
  detail?: string;
}

const typeStrings: Record<FieldErrorType, string> = {
  FieldValueNotFound: 'Not found',
  FieldValueRequired: 'Required value',
  FieldValueDuplicate: 'Duplicate value',
  FieldValueInvalid: 'Invalid value',
  FieldValueNotSupported: 'Unsupported value',
  FieldValueForbidden: 'Forbidden',
  FieldValueTooLong: 'Too long',
  InternalError: 'Internal error',
};

const omitsValue = new Set<FieldErrorType>(['FieldValueRequired', 'FieldValueForbidden', 'FieldValueTooLong', 'InternalError']);

function renderValue(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (v === null || v === undefined) return 'null';
  return JSON.stringify(v);
}

function fieldErrorBody(e: FieldError): string {
  let s = typeStrings[e.type];
  if (!omitsValue.has(e.type) && e.value !== undefined) s += `: ${renderValue(e.value)}`;
  if (e.detail) s += `: ${e.detail}`;
  return s;
}

export function fieldErrorString(e: FieldError): string {
  return `${e.field}: ${fieldErrorBody(e)}`;
}

function toCause(e: FieldError): StatusCause {
  return { reason: e.type, message: fieldErrorBody(e), field: e.field };
}

export const field = {
  required(path: string, detail?: string): FieldError {
    return { type: 'FieldValueRequired', field: path, detail };
  },
  invalid(path: string, value: unknown, detail?: string): FieldError {
    return { type: 'FieldValueInvalid', field: path, value, detail };
  },
  duplicate(path: string, value: unknown): FieldError {
    return { type: 'FieldValueDuplicate', field: path, value };
  },
  notSupported(path: string, value: unknown, supported: string[]): FieldError {
    return { type: 'FieldValueNotSupported', field: path, value, detail: `supported values: ${supported.map((s) => JSON.stringify(s)).join(', ')}` };
  },
  forbidden(path: string, detail?: string): FieldError {
    return { type: 'FieldValueForbidden', field: path, detail };
  },
  tooLong(path: string, max: number): FieldError {
    return { type: 'FieldValueTooLong', field: path, detail: `must have at most ${max} characters` };
  },
  notFound(path: string, value: unknown): FieldError {
    return { type: 'FieldValueNotFound', field: path, value };
  },
};
