// TokenRequest (`POST .../serviceaccounts/{name}/token`, `kubectl create token`): a short-lived token
// for a service account, for the audiences asked (the server's by default), optionally bound to a
// pod, a secret or a node of the account's namespace. Nothing is stored: the token is signed and
// returned, and the authenticator checks the account and the bound object on every use
// (src/authn/bound-token.ts). The rules follow the reference's token REST storage.
import { isPlainObject, type ApiObject, type JsonObject } from '../../api/object.ts';
import { wireText } from '../../api/safe-json.ts';
import type { BoundTokenClaims, ObjectRef } from '../../authn/types.ts';
import { errors, field, type FieldError } from '../../request/errors.ts';
import type { RestRequest } from '../../registry/rest.ts';
import type { HandlerFactory } from '../handler.ts';
import { defineKind } from '../kind.ts';
import { tokenRequestSchema } from '../../api/validation/kind-schemas.ts';
import type { Store } from '../../store/store.ts';

const GROUP = 'authentication.k8s.io';
const API_VERSION = `${GROUP}/v1`;
/** The reference's bounds of a requested life (authentication.MinTokenAgeSec, 2^32 s). */
const MIN_SECONDS = 600;
const MAX_SECONDS = 2 ** 32;
const DEFAULT_SECONDS = 3600;

/** The kinds a token may be bound to, and where each is stored (all in the core group). */
const BINDABLE: Record<string, { resource: string; namespaced: boolean }> = {
  Pod: { resource: 'pods', namespaced: true },
  Secret: { resource: 'secrets', namespaced: true },
  Node: { resource: 'nodes', namespaced: false },
};

function validateTokenRequest(obj: ApiObject): FieldError[] {
  const spec = isPlainObject(obj.spec) ? obj.spec : {};
  const errs: FieldError[] = [];
  const seconds = spec.expirationSeconds;
  if (typeof seconds === 'number') {
    if (seconds < MIN_SECONDS) errs.push(field.invalid('spec.expirationSeconds', seconds, `may not specify a duration less than ${MIN_SECONDS} seconds`));
    else if (seconds > MAX_SECONDS) errs.push(field.invalid('spec.expirationSeconds', seconds, 'may not specify a duration larger than 2^32 seconds'));
  }
  const ref = spec.boundObjectRef;
  if (isPlainObject(ref) && (typeof ref.name !== 'string' || ref.name === '')) errs.push(field.required('spec.boundObjectRef.name'));
  return errs;
}

/** The request's body as a TokenRequest; the version and kind, when given, must be this one's. */
function tokenRequestBody(req: RestRequest): JsonObject {
  const body = req.body;
  if (!isPlainObject(body)) throw errors.badRequest('the object provided is unrecognized (must be of type TokenRequest): expected an object');
  if (body.apiVersion !== undefined && body.apiVersion !== API_VERSION) {
    throw errors.badRequest(`the API version in the data (${wireText(body.apiVersion)}) does not match the expected API version (${API_VERSION})`);
  }
  if (body.kind !== undefined && body.kind !== 'TokenRequest') {
    throw errors.badRequest(`the object provided is unrecognized (must be of type TokenRequest): kind ${wireText(body.kind)}`);
  }
  return body;
}

/** The object the token is to be bound to, checked as the reference does; undefined when none is asked. */
function boundObject(store: Store, req: RestRequest, account: string, ref: JsonObject | undefined): { kind: string; ref: ObjectRef } | undefined {
  if (!ref) return undefined;
  const kind = typeof ref.kind === 'string' ? ref.kind : '';
  const apiVersion = typeof ref.apiVersion === 'string' ? ref.apiVersion : '';
  // only the core group's kinds bind (`v1`, or no apiVersion at all)
  const where = !apiVersion.includes('/') && Object.hasOwn(BINDABLE, kind) ? BINDABLE[kind] : undefined;
  // Go prints a group-version-kind as `group/version, Kind=kind`, the core group's as `/v1, …`
  if (!where) throw errors.badRequest(`cannot bind token to object of type ${wireText(apiVersion.includes('/') ? apiVersion : `/${apiVersion}`)}, Kind=${wireText(kind)}`);
  const name = ref.name as string;
  const found: ApiObject | undefined = store.get({ group: '', resource: where.resource, namespace: where.namespaced ? req.namespace : '', name });
  if (!found) throw errors.notFound({ group: '', resource: where.resource }, name);
  if (kind === 'Pod') {
    const podAccount = isPlainObject(found.spec) ? found.spec.serviceAccountName : undefined;
    if (podAccount !== account) throw errors.badRequest(`cannot bind token for serviceaccount "${account}" to pod running with different serviceaccount name.`);
  }
  const uid = found.metadata.uid ?? '';
  if (typeof ref.uid === 'string' && ref.uid !== '' && ref.uid !== uid) {
    throw errors.conflict(
      { group: '', resource: kind },
      name,
      `the UID in the bound object reference (${wireText(ref.uid)}) does not match the UID in record. The object might have been deleted and then recreated`,
    );
  }
  return { kind, ref: { name, uid } };
}

export const tokenRequestHandler: HandlerFactory =
  ({ store, tokens }) =>
  async (req, method) => {
    if (!tokens) throw errors.routeNotFound();
    if (method !== 'POST') throw errors.methodNotAllowed();
    const body = tokenRequestBody(req);
    const meta = isPlainObject(body.metadata) ? body.metadata : {};
    if (meta.name !== undefined && meta.name !== '' && meta.name !== req.name) {
      throw errors.invalid(GROUP, 'TokenRequest', req.name, [field.invalid('metadata.name', meta.name, 'must match the service account name if specified')]);
    }
    if (meta.namespace !== undefined && meta.namespace !== '' && meta.namespace !== req.namespace) {
      throw errors.invalid(GROUP, 'TokenRequest', req.name, [field.invalid('metadata.namespace', meta.namespace, 'must match the service account namespace if specified')]);
    }
    const account = store.get({ group: '', resource: 'serviceaccounts', namespace: req.namespace, name: req.name });
    if (!account) throw errors.notFound({ group: '', resource: 'serviceaccounts' }, req.name);
    const errs = tokenRequestKind.strategy?.validate?.({ ...body, metadata: {} }, undefined) ?? [];
    if (errs.length) throw errors.invalid(GROUP, 'TokenRequest', '', errs);

    const spec = isPlainObject(body.spec) ? body.spec : {};
    const asked = Array.isArray(spec.audiences) ? (spec.audiences as string[]) : [];
    const audiences = asked.length > 0 ? asked : [...tokens.audiences];
    const bound = boundObject(store, req, req.name, isPlainObject(spec.boundObjectRef) ? spec.boundObjectRef : undefined);
    let seconds = typeof spec.expirationSeconds === 'number' ? spec.expirationSeconds : DEFAULT_SECONDS;
    const warnings: string[] = [];
    if (tokens.maxExpirationSeconds > 0 && seconds > tokens.maxExpirationSeconds) {
      warnings.push(`requested expiration of ${seconds} seconds shortened to ${tokens.maxExpirationSeconds} seconds`);
      seconds = tokens.maxExpirationSeconds;
    }
    // whole seconds, taken before signing: the answer's expiry is never later than the token's
    const issuedAt = Math.floor(Date.now() / 1000);
    const claims: BoundTokenClaims = {
      namespace: req.namespace,
      account: { name: req.name, uid: account.metadata.uid ?? '' },
      audiences,
      issuedAt,
      expiresAt: issuedAt + seconds,
    };
    if (bound?.kind === 'Pod') claims.pod = bound.ref;
    if (bound?.kind === 'Secret') claims.secret = bound.ref;
    if (bound?.kind === 'Node') claims.node = bound.ref;
    const token = await tokens.issuer.signBound(claims);
    // the reference's boundObjectRef has no omitempty: null when none is asked
    const outSpec: JsonObject = { audiences, expirationSeconds: seconds, boundObjectRef: isPlainObject(spec.boundObjectRef) ? spec.boundObjectRef : null };
    return {
      status: 201,
      warnings,
      body: {
        kind: 'TokenRequest',
        apiVersion: API_VERSION,
        metadata: { name: req.name, namespace: req.namespace, creationTimestamp: isoSeconds(issuedAt) },
        spec: outSpec,
        status: { token, expirationTimestamp: isoSeconds(claims.expiresAt) },
      },
    };
  };

function isoSeconds(epochSeconds: number): string {
  return new Date(epochSeconds * 1000).toISOString().replace(/\.\d+Z$/, 'Z');
}

/** Only ever the body of a service account's `token` subresource: no catalogue row of its own. */
export const tokenRequestKind = defineKind({
  kind: 'TokenRequest',
  schema: tokenRequestSchema,
  served: [],
  strategy: { nameRule: 'dns1123-subdomain', validate: validateTokenRequest },
});
