// The engine's input document: a SubjectAccessReview, the same object the authorization webhook
// receives, so policies written for that webhook fit.
export const SAR_API_VERSION = 'authorization.platform.io/v1beta1';

export interface ResourceAttributes {
  namespace?: string;
  verb?: string;
  group?: string;
  version?: string;
  resource?: string;
  subresource?: string;
  name?: string;
}

export interface NonResourceAttributes {
  path?: string;
  verb?: string;
}

export interface SubjectAccessReviewSpec {
  user?: string;
  /** v1beta1 spells the list singular. */
  group?: string[];
  extra?: Record<string, string[]>;
  resourceAttributes?: ResourceAttributes;
  nonResourceAttributes?: NonResourceAttributes;
}

export interface SubjectAccessReview {
  apiVersion: string;
  kind: 'SubjectAccessReview';
  spec: SubjectAccessReviewSpec;
  status?: { allowed: boolean; reason?: string; evaluationError?: string };
}

/** The request as every evaluator reads it (missing or non-string fields are ""). */
export interface FlatRequest {
  user: string;
  groups: string[];
  isResource: boolean;
  namespace: string;
  verb: string;
  apiGroup: string;
  resource: string;
  subresource: string;
  name: string;
  path: string;
}

const s = (v: unknown): string => (typeof v === 'string' ? v : '');

export function flatten(spec: SubjectAccessReviewSpec): FlatRequest {
  const groupsRaw = Array.isArray(spec.group) ? spec.group : Array.isArray((spec as { groups?: unknown }).groups) ? (spec as { groups: unknown[] }).groups : [];
  const groups = groupsRaw.filter((g): g is string => typeof g === 'string');
  const ra = spec.resourceAttributes;
  if (ra && typeof ra === 'object') {
    return {
      user: s(spec.user), groups, isResource: true, namespace: s(ra.namespace), verb: s(ra.verb), apiGroup: s(ra.group),
      resource: s(ra.resource), subresource: s(ra.subresource), name: s(ra.name), path: '',
    };
  }
  const nra = spec.nonResourceAttributes ?? {};
  return {
    user: s(spec.user), groups, isResource: false, namespace: '', verb: s(nra.verb), apiGroup: '',
    resource: '', subresource: '', name: '', path: s(nra.path),
  };
}

// Quoting without JSON.stringify when nothing needs escaping (the common case, and much cheaper).
// Surrogates go to JSON.stringify too: it escapes lone ones (\udc00), which raw UTF-8 would turn
// into U+FFFD, unlike the policy data (serialized by JSON.stringify).
const NEEDS_ESCAPE = /["\\\u0000-\u001f\u2028\u2029\ud800-\udfff]/;
const q = (v: string): string => (NEEDS_ESCAPE.test(v) ? JSON.stringify(v) : `"${v}"`);
function qList(list: string[]): string {
  let out = '[';
  for (let i = 0; i < list.length; i++) out += (i ? ',' : '') + q(list[i]);
  return out + ']';
}

/**
 * JSON text of a SubjectAccessReview built from a flat request, empty fields omitted (as the
 * webhook does). Hand-written because it is on the hot path of every uncached decision.
 */
export function sarJson(r: FlatRequest, extra?: Record<string, string[]>): string {
  let spec = '';
  if (r.isResource) {
    let ra = '';
    if (r.namespace) ra += `"namespace":${q(r.namespace)},`;
    if (r.verb) ra += `"verb":${q(r.verb)},`;
    if (r.apiGroup) ra += `"group":${q(r.apiGroup)},`;
    if (r.resource) ra += `"resource":${q(r.resource)},`;
    if (r.subresource) ra += `"subresource":${q(r.subresource)},`;
    if (r.name) ra += `"name":${q(r.name)},`;
    spec = `"resourceAttributes":{${ra.slice(0, -1)}}`;
  } else {
    let nra = '';
    if (r.path) nra += `"path":${q(r.path)},`;
    if (r.verb) nra += `"verb":${q(r.verb)},`;
    spec = `"nonResourceAttributes":{${nra.slice(0, -1)}}`;
  }
  if (r.user) spec += `,"user":${q(r.user)}`;
  if (r.groups.length) spec += `,"group":${qList(r.groups)}`;
  if (extra && Object.keys(extra).length) spec += `,"extra":${JSON.stringify(extra)}`;
  return `{"apiVersion":"${SAR_API_VERSION}","kind":"SubjectAccessReview","spec":{${spec}}}`;
}

export function sarFromFlat(r: FlatRequest, extra?: Record<string, string[]>): SubjectAccessReview {
  return JSON.parse(sarJson(r, extra)) as SubjectAccessReview;
}
