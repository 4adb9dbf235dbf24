import { wireText } from '../api/safe-json.ts';
import { isPlainObject, type JsonObject } from '../api/object.ts';
import { apiVersionOf } from '../api/catalogue.ts';
import type { Decision, SubjectRules } from '../authz/types.ts';
import type { TokenReviewStatus, UserInfo } from '../authn/types.ts';
import type { SubjectAccessReviewSpec } from '../policy/sar.ts';
import { errors, field, type FieldError } from '../request/errors.ts';
import type { SpecialHandler } from './dispatch.ts';
import type { RestRequest } from './rest.ts';

// The review kinds are not stored: a create evaluates the server's own authorizers (or token
// authenticators) and answers with the review's status (authn-authz.md §4.9, §5). Both judges are
// passed in as functions by the assembly: the registry knows no authenticator or authorizer.

/** Decides a validated review spec (the server's authorizer union, through the SAR conversion). */
export type ReviewDecider = (spec: SubjectAccessReviewSpec) => Promise<Decision> | Decision;
/** Judges a bearer token (the server's token authenticators), for the audiences asked about (may be none). */
export type TokenReviewer = (token: string, audiences: readonly string[]) => Promise<TokenReviewStatus>;

export type { NonResourceRule, ResourceRule, SubjectRules } from '../authz/types.ts';
/** Lists the rules the server's authorizers grant a user in a namespace (the union's rulesFor). */
export type RulesResolver = (user: UserInfo, namespace: string) => SubjectRules;

function reviewBody(req: RestRequest): JsonObject {
  const body = req.body;
  if (!isPlainObject(body)) throw errors.badRequest(`the object provided is unrecognized (must be of type ${req.def.kind}): expected a JSON object`);
  const want = apiVersionOf(req.def);
  if (body.apiVersion !== undefined && body.apiVersion !== want) {
    throw errors.badRequest(`the API version in the data (${wireText(body.apiVersion)}) does not match the expected API version (${want})`);
  }
  if (body.kind !== undefined && body.kind !== req.def.kind) {
    throw errors.badRequest(`the object provided is unrecognized (must be of type ${req.def.kind}): kind ${JSON.stringify(body.kind)}`);
  }
  return body;
}

function validateSarSpec(group: string, kind: string, spec: unknown, needsSubject: boolean): SubjectAccessReviewSpec {
  const errs: FieldError[] = [];
  if (!isPlainObject(spec)) throw errors.invalid(group, kind, '', [field.required('spec')]);
  const hasRes = spec.resourceAttributes !== undefined && spec.resourceAttributes !== null;
  const hasNonRes = spec.nonResourceAttributes !== undefined && spec.nonResourceAttributes !== null;
  if (!hasRes && !hasNonRes) errs.push(field.required('spec.resourceAttributes', 'exactly one of nonResourceAttributes or resourceAttributes must be specified'));
  if (hasRes && hasNonRes) errs.push(field.invalid('spec.nonResourceAttributes', spec.nonResourceAttributes, 'cannot be specified in combination with resourceAttributes'));
  if (hasRes && !isPlainObject(spec.resourceAttributes)) errs.push(field.invalid('spec.resourceAttributes', spec.resourceAttributes, 'must be an object'));
  if (hasNonRes && !isPlainObject(spec.nonResourceAttributes)) errs.push(field.invalid('spec.nonResourceAttributes', spec.nonResourceAttributes, 'must be an object'));
  // v1beta1 spells the group list `group`, v1 `groups`
  const groupsField = spec.groups !== undefined ? 'groups' : 'group';
  const groups = spec[groupsField];
  if (groups !== undefined && !(Array.isArray(groups) && groups.every((g) => typeof g === 'string'))) errs.push(field.invalid(`spec.${groupsField}`, groups, 'must be a list of strings'));
  if (spec.user !== undefined && typeof spec.user !== 'string') errs.push(field.invalid('spec.user', spec.user, 'must be a string'));
  if (needsSubject && !spec.user && !(Array.isArray(groups) && groups.length > 0)) errs.push(field.invalid('spec.user', spec.user ?? '', 'at least one of user or group must be specified'));
  if (errs.length) throw errors.invalid(group, kind, '', errs);
  return (groupsField === 'groups' ? { ...spec, group: groups } : spec) as SubjectAccessReviewSpec;
}

export function subjectAccessReviewHandlers(decide: ReviewDecider): Map<string, SpecialHandler> {
  const handle = (mode: 'sar' | 'self' | 'local'): SpecialHandler =>
    async (req, method) => {
      if (method !== 'POST' || req.name) throw errors.methodNotAllowed();
      const body = reviewBody(req);
      let spec = validateSarSpec(req.def.group, req.def.kind, body.spec, mode !== 'self');
      if (mode === 'self') spec = { ...spec, user: req.user.name, group: req.user.groups, extra: req.user.extra };
      if (mode === 'local') {
        const ns = spec.resourceAttributes?.namespace ?? '';
        if (!spec.resourceAttributes || ns !== req.namespace) {
          throw errors.badRequest(`spec.resourceAttributes.namespace must match namespace: ${req.namespace}`);
        }
      }
      const d = await decide(spec);
      const status: JsonObject = { allowed: d.allowed };
      if (d.reason) status.reason = d.reason;
      if (d.error) status.evaluationError = d.error;
      return { status: 201, body: { kind: req.def.kind, apiVersion: apiVersionOf(req.def), metadata: isPlainObject(body.metadata) ? body.metadata : {}, spec: body.spec, status } };
    };
  return new Map([
    ['subjectaccessreviews', handle('sar')],
    ['selfsubjectaccessreviews', handle('self')],
    ['localsubjectaccessreviews', handle('local')],
  ]);
}

export function tokenReviewHandler(review: TokenReviewer): Map<string, SpecialHandler> {
  const handler: SpecialHandler = async (req, method) => {
    if (method !== 'POST' || req.name) throw errors.methodNotAllowed();
    const body = reviewBody(req);
    const spec = body.spec;
    if (!isPlainObject(spec) || typeof spec.token !== 'string' || spec.token === '') {
      throw errors.invalid(req.def.group, 'TokenReview', '', [field.required('spec.token')]);
    }
    const audiences = spec.audiences ?? [];
    if (!Array.isArray(audiences) || !audiences.every((a): a is string => typeof a === 'string' && a !== '')) {
      throw errors.invalid(req.def.group, 'TokenReview', '', [field.invalid('spec.audiences', audiences, 'must be a list of non-empty strings')]);
    }
    const status = await review(spec.token, audiences);
    // the token is a credential: never echo it back
    const echoed = audiences.length > 0 ? { audiences } : {};
    return { status: 201, body: { kind: 'TokenReview', apiVersion: apiVersionOf(req.def), metadata: {}, spec: echoed, status: status as unknown as JsonObject } };
  };
  return new Map([['tokenreviews', handler]]);
}

/**
 * SelfSubjectRulesReview: what the caller may do in `spec.namespace`, as the server's authorizers
 * list it. The answer lists the rules only; whether they are all is `incomplete`.
 */
export function selfSubjectRulesReviewHandler(resolve: RulesResolver): SpecialHandler {
  return (req, method) => {
    if (method !== 'POST' || req.name) throw errors.methodNotAllowed();
    const body = reviewBody(req);
    const spec = isPlainObject(body.spec) ? body.spec : {};
    if (spec.namespace !== undefined && typeof spec.namespace !== 'string') {
      throw errors.invalid(req.def.group, req.def.kind, '', [field.invalid('spec.namespace', spec.namespace, 'must be a string')]);
    }
    const namespace = spec.namespace ?? '';
    if (!namespace) throw errors.badRequest('no namespace on request');
    const status = resolve(req.user, namespace);
    return { status: 201, body: { kind: req.def.kind, apiVersion: apiVersionOf(req.def), metadata: {}, spec: { namespace }, status: status as unknown as JsonObject } };
  };
}

/** SelfSubjectReview (`kubectl auth whoami`): the caller's user information as authenticated (and impersonated). */
export const selfSubjectReviewHandler: SpecialHandler = (req, method) => {
  if (method !== 'POST' || req.name) throw errors.methodNotAllowed();
  reviewBody(req);
  const userInfo: JsonObject = { username: req.user.name };
  if (req.user.uid) userInfo.uid = req.user.uid;
  if (req.user.groups.length) userInfo.groups = [...req.user.groups];
  if (req.user.extra && Object.keys(req.user.extra).length) userInfo.extra = { ...req.user.extra };
  return { status: 201, body: { kind: req.def.kind, apiVersion: apiVersionOf(req.def), metadata: { creationTimestamp: null }, status: { userInfo } } };
};
