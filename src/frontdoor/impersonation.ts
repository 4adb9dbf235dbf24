// Impersonation, the reference's WithImpersonation filter (modern form), between authentication and
// authorization: Impersonate-User / -Group / -Extra-<key> / -Uid ask to act as another identity. The
// caller must be allowed the `impersonate` verb on each part, through the same authorizer union as
// every request; the request is then authorized and served as the impersonated user.
import type { IncomingMessage } from 'node:http';
import { ANONYMOUS_USER, UNAUTHENTICATED_GROUP, withAuthenticatedGroup } from '../authn/anonymous.ts';
import { SERVICE_ACCOUNT_USER_PREFIX, serviceAccountGroups, serviceAccountUsername } from '../authn/service-account.ts';
import type { UserInfo } from '../authn/types.ts';
import type { Authorizer, AuthzAttributes } from '../authz/types.ts';
import { isDNS1123Label, isDNS1123Subdomain } from '../api/validation/names.ts';
import { errors } from '../request/errors.ts';
import { denial } from './authorize.ts';

const USER_HEADER = 'impersonate-user';
const GROUP_HEADER = 'impersonate-group';
const UID_HEADER = 'impersonate-uid';
const EXTRA_PREFIX = 'impersonate-extra-';
/** userextras and uids live in the authentication group (the reference's authentication.k8s.io). */
const AUTHENTICATION_GROUP = 'authentication.platform.io';
const AUTHENTICATION_VERSION = 'v1beta1';

/** One thing the caller asks to act as, with the header that asked for it (for messages). */
interface ImpersonationRequest {
  header: string;
  attrs: AuthzAttributes;
}

function impersonate(resource: string, name: string, more: Partial<AuthzAttributes> = {}): AuthzAttributes {
  return { isResourceRequest: true, path: '', verb: 'impersonate', apiGroup: '', apiVersion: '', namespace: '', resource, subresource: '', name, ...more };
}

/** `system:serviceaccount:<ns>:<name>` with a valid namespace and name, else null (a plain user). */
function splitServiceAccount(user: string): { namespace: string; name: string } | null {
  if (!user.startsWith(SERVICE_ACCOUNT_USER_PREFIX)) return null;
  const parts = user.slice(SERVICE_ACCOUNT_USER_PREFIX.length).split(':');
  if (parts.length !== 2) return null;
  const [namespace, name] = parts;
  if (isDNS1123Label(namespace).length || isDNS1123Subdomain(name).length) return null;
  return { namespace, name };
}

/** Extra keys travel percent-encoded in header names; a malformed encoding is kept as it came. */
function extraKey(encoded: string): string {
  try {
    return decodeURIComponent(encoded);
  } catch {
    return encoded;
  }
}

const IMPERSONATE = /^impersonate-/i;

/**
 * The Impersonate-* header lines by lower-cased name, one value per line in arrival order. Read from
 * rawHeaders: Node joins repeated lines of unknown headers with ", " in req.headers, and a group or
 * extra value may itself contain a comma.
 */
function impersonationHeaders(raw: readonly string[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (let i = 0; i + 1 < raw.length; i += 2) {
    if (!IMPERSONATE.test(raw[i])) continue;
    const name = raw[i].toLowerCase();
    const values = out.get(name);
    if (values) values.push(raw[i + 1]);
    else out.set(name, [raw[i + 1]]);
  }
  return out;
}

/** What the headers ask for, in the reference's order (user, groups, extras, uid); [] when nothing. */
function impersonationRequests(headers: Map<string, string[]>): ImpersonationRequest[] {
  const out: ImpersonationRequest[] = [];
  // single-valued headers: the first line counts, as Go's Header.Get
  const user = headers.get(USER_HEADER)?.[0] ?? '';
  if (user) {
    const sa = splitServiceAccount(user);
    out.push({
      header: `Impersonate-User: ${user}`,
      attrs: sa ? impersonate('serviceaccounts', sa.name, { namespace: sa.namespace }) : impersonate('users', user),
    });
  }
  for (const g of headers.get(GROUP_HEADER) ?? []) out.push({ header: `Impersonate-Group: ${g}`, attrs: impersonate('groups', g) });
  for (const [h, values] of headers) {
    if (!h.startsWith(EXTRA_PREFIX)) continue;
    const key = extraKey(h.slice(EXTRA_PREFIX.length));
    for (const v of values) {
      out.push({
        header: `Impersonate-Extra-${key}: ${v}`,
        attrs: impersonate('userextras', v, { apiGroup: AUTHENTICATION_GROUP, apiVersion: AUTHENTICATION_VERSION, subresource: key }),
      });
    }
  }
  const uid = headers.get(UID_HEADER)?.[0] ?? '';
  if (uid) out.push({ header: `Impersonate-Uid: ${uid}`, attrs: impersonate('uids', uid, { apiGroup: AUTHENTICATION_GROUP, apiVersion: AUTHENTICATION_VERSION }) });
  if (out.length && !user) {
    throw errors.badRequest(`requested [${out.map((r) => r.header).join(', ')}] without impersonating a user`);
  }
  return out;
}

/** The identity the (already authorized) requests describe. */
function impersonatedUser(requests: ImpersonationRequest[]): UserInfo {
  let name = '';
  let uid: string | undefined;
  const groups: string[] = [];
  // a Map: an extra key is the caller's text (`__proto__`, `constructor`) and must stay a plain key
  const extra = new Map<string, string[]>();
  // explicit groups are the authority; a service account's fixed groups apply only without them
  const groupsSpecified = requests.some((r) => r.attrs.resource === 'groups');
  for (const { attrs: a } of requests) {
    switch (a.resource) {
      case 'serviceaccounts':
        name = serviceAccountUsername(a.namespace, a.name);
        if (!groupsSpecified) groups.push(...serviceAccountGroups(a.namespace));
        break;
      case 'users':
        name = a.name;
        break;
      case 'groups':
        groups.push(a.name);
        break;
      case 'userextras':
        extra.set(a.subresource, [...(extra.get(a.subresource) ?? []), a.name]);
        break;
      case 'uids':
        uid = a.name;
        break;
    }
  }
  const user: UserInfo = { name, groups };
  if (uid !== undefined) user.uid = uid;
  // Object.fromEntries defines own properties, so no key reaches a prototype
  if (extra.size) user.extra = Object.fromEntries(extra);
  if (name !== ANONYMOUS_USER) return withAuthenticatedGroup(user);
  if (!groups.includes(UNAUTHENTICATED_GROUP)) groups.push(UNAUTHENTICATED_GROUP);
  return user;
}

/**
 * Nothing downstream sees the Impersonate-* headers once they have been acted on (as with the
 * credential, rawHeaders stays as it came: Node builds its header views from it by count).
 */
function removeImpersonationHeaders(req: IncomingMessage): void {
  for (const view of [req.headers, req.headersDistinct]) {
    for (const h of Object.keys(view)) if (IMPERSONATE.test(h)) delete view[h];
  }
}

/**
 * Runs after authentication: a request without Impersonate-* headers keeps its caller; otherwise every
 * part must be allowed (403 naming the first refused part, as the caller), and the request continues as
 * the impersonated user, returned here. Groups, extras or a uid without Impersonate-User are a 400.
 */
export async function impersonation(authorizer: Authorizer, req: IncomingMessage, caller: UserInfo): Promise<UserInfo> {
  const requests = impersonationRequests(impersonationHeaders(req.rawHeaders));
  if (requests.length === 0) return caller;
  for (const { attrs } of requests) {
    const d = await authorizer.authorize(caller, attrs);
    // the reference answers 403 for a refusal and for an authorizer error alike
    if (!d.allowed) throw denial(caller, attrs, d.reason);
  }
  removeImpersonationHeaders(req);
  return impersonatedUser(requests);
}
