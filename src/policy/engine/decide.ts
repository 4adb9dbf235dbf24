// The decision procedure over compiled data (see src/policy/format.ts for the data layout):
//   candidates = scope "*"  ∪  scope <request namespace>   (RoleBinding grants live in their namespace)
//                × (users[user] ∪ groups[g] for each group ∪ any)
// Every candidate list is sorted by grant order "o", so the first match in a list is that list's
// best; the answer is the matching grant with the smallest "o" (= first matching ABAC line).
import {
  T_STRING, T_ARRAY, T_OBJECT, T_BOOL, T_NUMBER,
  typeOf, strLen, strPtr, arrCount, arrAt, get, getK, lit, internLit, strEq, bytesEq, objGetBytes,
  numberOrder, newString, newArray,
} from './value';

let EMPTY: usize = 0;
let STAR_BYTE: u8 = 0x2a;
let K_SPEC: usize = 0; let K_USER: usize = 0; let K_GROUP: usize = 0; let K_GROUPS: usize = 0;
let K_RA: usize = 0; let K_NRA: usize = 0; let K_NAMESPACE: usize = 0; let K_VERB: usize = 0;
let K_RESOURCE: usize = 0; let K_SUBRESOURCE: usize = 0; let K_NAME: usize = 0; let K_PATH: usize = 0;
let K_PORTCULLIS: usize = 0; let K_SCOPES: usize = 0; let K_ROLES: usize = 0; let K_USERS: usize = 0;
let K_ANY: usize = 0; let K_O: usize = 0; let K_REASON: usize = 0; let K_RULES: usize = 0; let K_ROLE: usize = 0;
let K_VERBS: usize = 0; let K_APIGROUPS: usize = 0; let K_RESOURCES: usize = 0; let K_RESOURCENAMES: usize = 0;
let K_NAMESPACES: usize = 0; let K_URLS: usize = 0; let K_ANYSUB: usize = 0; let K_STAR: usize = 0;
export let NO_MATCH: usize = 0;
export let BAD_INPUT: usize = 0;

export function initKeys(): void {
  EMPTY = lit('');
  K_SPEC = internLit('spec'); K_USER = internLit('user'); K_GROUP = internLit('group'); K_GROUPS = internLit('groups');
  K_RA = internLit('resourceAttributes'); K_NRA = internLit('nonResourceAttributes'); K_NAMESPACE = internLit('namespace');
  K_VERB = internLit('verb'); K_RESOURCE = internLit('resource'); K_SUBRESOURCE = internLit('subresource'); K_NAME = internLit('name');
  K_PATH = internLit('path'); K_PORTCULLIS = internLit('portcullis'); K_SCOPES = internLit('scopes'); K_ROLES = internLit('roles');
  K_USERS = internLit('users'); K_ANY = internLit('any'); K_O = internLit('o'); K_REASON = internLit('reason'); K_RULES = internLit('rules');
  K_ROLE = internLit('role'); K_VERBS = internLit('verbs'); K_APIGROUPS = internLit('apiGroups'); K_RESOURCES = internLit('resources');
  K_RESOURCENAMES = internLit('resourceNames'); K_NAMESPACES = internLit('namespaces'); K_URLS = internLit('nonResourceURLs');
  K_ANYSUB = internLit('anySubresource'); K_STAR = internLit('*');
  NO_MATCH = lit('no policy matched');
  BAD_INPUT = lit('input is not a SubjectAccessReview (spec missing)');
}

// ---- the request, extracted once ----
let user: usize = 0;
let groups: usize = 0;      // array value or 0
let isResource = false;
let rNs: usize = 0; let rVerb: usize = 0; let rGroup: usize = 0; let rResource: usize = 0;
let rSub: usize = 0; let rName: usize = 0; let rPath: usize = 0;
let combinedPtr: usize = 0; let combinedLen: u32 = 0; // "resource/subresource" (or resource)

function str(o: usize, k: usize): usize {
  let v = getK(o, k);
  return typeOf(v) == T_STRING ? v : EMPTY;
}

function setResource(ns: usize, verb: usize, group: usize, resource: usize, sub: usize, name: usize): void {
  isResource = true;
  rNs = ns; rVerb = verb; rGroup = group; rResource = resource; rSub = sub; rName = name;
  rPath = EMPTY;
  let rl = strLen(rResource);
  let sl = strLen(rSub);
  if (sl == 0) { combinedPtr = strPtr(rResource); combinedLen = rl; }
  else {
    combinedLen = rl + 1 + sl;
    combinedPtr = __alloc(<usize>combinedLen);
    memory.copy(combinedPtr, strPtr(rResource), <usize>rl);
    store<u8>(combinedPtr + <usize>rl, 0x2f);
    memory.copy(combinedPtr + <usize>rl + 1, strPtr(rSub), <usize>sl);
  }
}

function setNonResource(path: usize, verb: usize): void {
  isResource = false;
  rPath = path; rVerb = verb;
  rNs = EMPTY; rGroup = EMPTY; rResource = EMPTY; rSub = EMPTY; rName = EMPTY;
}

/** Reads the SubjectAccessReview; false when there is no spec object. */
function readInput(input: usize): bool {
  let spec = getK(input, K_SPEC);
  if (typeOf(spec) != T_OBJECT) return false;
  user = str(spec, K_USER);
  groups = getK(spec, K_GROUP);
  if (typeOf(groups) != T_ARRAY) groups = getK(spec, K_GROUPS);
  if (typeOf(groups) != T_ARRAY) groups = 0;
  let ra = getK(spec, K_RA);
  if (typeOf(ra) == T_OBJECT) {
    setResource(str(ra, K_NAMESPACE), str(ra, K_VERB), str(ra, K_GROUP), str(ra, K_RESOURCE), str(ra, K_SUBRESOURCE), str(ra, K_NAME));
  } else {
    let nra = getK(spec, K_NRA);
    setNonResource(str(nra, K_PATH), str(nra, K_VERB));
  }
  return true;
}

/**
 * Reads the compact request of the host's fast path: UTF-8 fields separated by NUL bytes —
 * user, then namespace, verb, group, resource, subresource, name (resource requests) or path, verb
 * (non-resource requests), then each group. The same request as the SubjectAccessReview with those
 * fields (empty = absent). False when the field count is not 1 + fixed + nGroups (a field held a
 * NUL byte): the host then uses the JSON path.
 */
export function readCompact(p: usize, len: u32, nGroups: u32, resource: bool): bool {
  let fixed: u32 = resource ? 7 : 3;
  let total = fixed + nGroups;
  let fields = __alloc(<usize>total << 2);
  let count: u32 = 0;
  let start = p;
  let end = p + <usize>len;
  for (let q = p; q <= end; q++) {
    if (q == end || load<u8>(q) == 0) {
      if (count == total) return false;
      store<u32>(fields + (<usize>count << 2), <u32>newString(start, <u32>(q - start)));
      count++;
      start = q + 1;
    }
  }
  if (count != total) return false;
  let f = fields;
  user = <usize>load<u32>(f);
  if (resource) {
    setResource(<usize>load<u32>(f, 4), <usize>load<u32>(f, 8), <usize>load<u32>(f, 12), <usize>load<u32>(f, 16), <usize>load<u32>(f, 20), <usize>load<u32>(f, 24));
  } else {
    setNonResource(<usize>load<u32>(f, 4), <usize>load<u32>(f, 8));
  }
  groups = nGroups > 0 ? newArray(fields + (<usize>fixed << 2), nGroups) : 0;
  return true;
}

// @ts-ignore: decorator
@inline function isStar(s: usize): bool { return strLen(s) == 1 && load<u8>(strPtr(s)) == STAR_BYTE; }

/** list contains "*" (when starOk) or exactly (p, n). A missing list matches nothing. */
function listMatches(list: usize, p: usize, n: u32, starOk: bool): bool {
  if (typeOf(list) != T_ARRAY) return false;
  let c = arrCount(list);
  let elems = <usize>load<u32>(list, 8);
  let first: u32 = n > 0 ? <u32>load<u8>(p) : 0;
  for (let i: u32 = 0; i < c; i++) {
    let s = <usize>load<u32>(elems + (<usize>i << 2));
    if (load<u32>(s) != T_STRING) continue;
    let l = strLen(s);
    let sp = strPtr(s);
    if (l == 1 && starOk && load<u8>(sp) == STAR_BYTE) return true;
    if (l == n && (n == 0 || (<u32>load<u8>(sp) == first && bytesEq(sp, p, n)))) return true;
  }
  return false;
}

// @ts-ignore: decorator
@inline function listHas(list: usize, s: usize): bool { return listMatches(list, strPtr(s), strLen(s), true); }

function urlMatches(list: usize): bool {
  if (typeOf(list) != T_ARRAY) return false;
  let c = arrCount(list);
  let pp = strPtr(rPath);
  let pl = strLen(rPath);
  for (let i: u32 = 0; i < c; i++) {
    let s = arrAt(list, i);
    if (typeOf(s) != T_STRING) continue;
    let l = strLen(s);
    let sp = strPtr(s);
    if (l == 1 && load<u8>(sp) == STAR_BYTE) return true;
    if (l == pl && bytesEq(sp, pp, l)) return true;
    if (l > 0 && load<u8>(sp + <usize>l - 1) == STAR_BYTE) {
      let k = l;
      while (k > 0 && load<u8>(sp + <usize>k - 1) == STAR_BYTE) k--;
      if (pl >= k && bytesEq(sp, pp, k)) return true;
    }
  }
  return false;
}

function ruleMatches(rule: usize): bool {
  // every test must hold, so their order is free: the most selective (ABAC namespaces) first
  if (isResource) {
    let nss = getK(rule, K_NAMESPACES);
    if (nss != 0 && !listHas(nss, rNs)) return false;
  }
  if (!listHas(getK(rule, K_VERBS), rVerb)) return false;
  if (!isResource) return urlMatches(getK(rule, K_URLS));
  if (!listHas(getK(rule, K_APIGROUPS), rGroup)) return false;
  let anySub = getK(rule, K_ANYSUB);
  let res = getK(rule, K_RESOURCES);
  if (typeOf(anySub) == T_BOOL && load<u32>(anySub, 4) != 0) {
    if (!listHas(res, rResource)) return false;
  } else if (!listMatches(res, combinedPtr, combinedLen, true)) return false;
  let names = getK(rule, K_RESOURCENAMES);
  if (typeOf(names) == T_ARRAY && arrCount(names) > 0) {
    if (!listMatches(names, strPtr(rName), strLen(rName), false)) return false;
  }
  return true;
}

function hasGroup(g: usize): bool {
  if (groups == 0) return false;
  let c = arrCount(groups);
  for (let i: u32 = 0; i < c; i++) {
    let x = arrAt(groups, i);
    if (typeOf(x) == T_STRING && strEq(x, g)) return true;
  }
  return false;
}

let roles: usize = 0;

function grantMatches(grant: usize): bool {
  let cond = getK(grant, K_GROUP);
  if (typeOf(cond) == T_STRING && !hasGroup(cond)) return false;
  let rules = getK(grant, K_RULES);
  if (typeOf(rules) != T_ARRAY) {
    let key = getK(grant, K_ROLE);
    if (typeOf(key) != T_STRING) return false;
    rules = get(roles, key);
    if (typeOf(rules) != T_ARRAY) return false; // missing role: no rules (a resolution error upstream)
  }
  let c = arrCount(rules);
  for (let i: u32 = 0; i < c; i++) if (ruleMatches(arrAt(rules, i))) return true;
  return false;
}

/** Unsigned integer of a NUMBER value ("o", read at parse); non-numbers sort last. */
// @ts-ignore: decorator
@inline function orderOf(v: usize): u32 {
  return typeOf(v) == T_NUMBER ? numberOrder(v) : 0xffffffff;
}

let bestOrder: u32 = 0;
let bestGrant: usize = 0;

function scanList(list: usize): void {
  if (typeOf(list) != T_ARRAY) return;
  let c = arrCount(list);
  for (let i: u32 = 0; i < c; i++) {
    let grant = arrAt(list, i);
    let o = orderOf(getK(grant, K_O));
    if (o >= bestOrder) return;
    if (grantMatches(grant)) { bestOrder = o; bestGrant = grant; return; }
  }
}

function scanScope(idx: usize): void {
  if (typeOf(idx) != T_OBJECT) return;
  scanList(get(getK(idx, K_USERS), user));
  let byGroup = getK(idx, K_GROUPS);
  if (groups != 0 && typeOf(byGroup) == T_OBJECT) {
    let c = arrCount(groups);
    for (let i: u32 = 0; i < c; i++) {
      let g = arrAt(groups, i);
      if (typeOf(g) == T_STRING) scanList(get(byGroup, g));
    }
  }
  scanList(getK(idx, K_ANY));
}

/** Decides; returns the reason string value, and sets `allowed`. */
export let allowed = false;

export function decide(data: usize, input: usize): usize {
  allowed = false;
  if (!readInput(input)) return BAD_INPUT;
  return decideRequest(data);
}

/** Decides the request already read (readInput or readCompact). */
export function decideRequest(data: usize): usize {
  allowed = false;
  let root = getK(data, K_PORTCULLIS);
  let scopes = getK(root, K_SCOPES);
  roles = getK(root, K_ROLES);
  bestOrder = 0xffffffff;
  bestGrant = 0;
  scanScope(getK(scopes, K_STAR));
  if (isResource && strLen(rNs) > 0 && typeOf(scopes) == T_OBJECT) {
    let idx = objGetBytes(scopes, strPtr(rNs), strLen(rNs));
    if (idx != 0) scanScope(idx);
  }
  if (bestGrant == 0) return NO_MATCH;
  allowed = true;
  let reason = getK(bestGrant, K_REASON);
  return typeOf(reason) == T_STRING ? reason : EMPTY;
}
