// The decision procedure over compiled data (see src/policy/format.ts for the data layout):
//   candidates = scope "*"  ∪  scope <request namespace>   (RoleBinding grants live in their namespace)
//                × (users[user] ∪ groups[g] for each group ∪ any)
// Every candidate list is sorted by grant order "o", so the first match in a list is that list's
// best; the answer is the matching grant with the smallest "o" (= first matching ABAC line).
import {
  T_STRING, T_ARRAY, T_OBJECT, T_BOOL, T_NUMBER,
  typeOf, strLen, strPtr, arrCount, arrAt, get, lit, strEq, bytesEq, objFindBytes, objVal,
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
  K_SPEC = lit('spec'); K_USER = lit('user'); K_GROUP = lit('group'); K_GROUPS = lit('groups');
  K_RA = lit('resourceAttributes'); K_NRA = lit('nonResourceAttributes'); K_NAMESPACE = lit('namespace');
  K_VERB = lit('verb'); K_RESOURCE = lit('resource'); K_SUBRESOURCE = lit('subresource'); K_NAME = lit('name');
  K_PATH = lit('path'); K_PORTCULLIS = lit('portcullis'); K_SCOPES = lit('scopes'); K_ROLES = lit('roles');
  K_USERS = lit('users'); K_ANY = lit('any'); K_O = lit('o'); K_REASON = lit('reason'); K_RULES = lit('rules');
  K_ROLE = lit('role'); K_VERBS = lit('verbs'); K_APIGROUPS = lit('apiGroups'); K_RESOURCES = lit('resources');
  K_RESOURCENAMES = lit('resourceNames'); K_NAMESPACES = lit('namespaces'); K_URLS = lit('nonResourceURLs');
  K_ANYSUB = lit('anySubresource'); K_STAR = lit('*');
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
  let v = get(o, k);
  return typeOf(v) == T_STRING ? v : EMPTY;
}

/** Reads the SubjectAccessReview; false when there is no spec object. */
function readInput(input: usize): bool {
  let spec = get(input, K_SPEC);
  if (typeOf(spec) != T_OBJECT) return false;
  user = str(spec, K_USER);
  groups = get(spec, K_GROUP);
  if (typeOf(groups) != T_ARRAY) groups = get(spec, K_GROUPS);
  if (typeOf(groups) != T_ARRAY) groups = 0;
  let ra = get(spec, K_RA);
  if (typeOf(ra) == T_OBJECT) {
    isResource = true;
    rNs = str(ra, K_NAMESPACE); rVerb = str(ra, K_VERB); rGroup = str(ra, K_GROUP);
    rResource = str(ra, K_RESOURCE); rSub = str(ra, K_SUBRESOURCE); rName = str(ra, K_NAME);
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
  } else {
    isResource = false;
    let nra = get(spec, K_NRA);
    rPath = str(nra, K_PATH); rVerb = str(nra, K_VERB);
    rNs = EMPTY; rGroup = EMPTY; rResource = EMPTY; rSub = EMPTY; rName = EMPTY;
  }
  return true;
}

// @ts-ignore: decorator
@inline function isStar(s: usize): bool { return strLen(s) == 1 && load<u8>(strPtr(s)) == STAR_BYTE; }

/** list contains "*" or exactly (p, n). A missing list matches nothing. */
function listMatches(list: usize, p: usize, n: u32, starOk: bool): bool {
  if (typeOf(list) != T_ARRAY) return false;
  let c = arrCount(list);
  for (let i: u32 = 0; i < c; i++) {
    let s = arrAt(list, i);
    if (typeOf(s) != T_STRING) continue;
    let l = strLen(s);
    if (l == n && bytesEq(strPtr(s), p, n)) return true;
    if (starOk && l == 1 && load<u8>(strPtr(s)) == STAR_BYTE) return true;
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
  if (!listHas(get(rule, K_VERBS), rVerb)) return false;
  if (!isResource) return urlMatches(get(rule, K_URLS));
  let nss = get(rule, K_NAMESPACES);
  if (nss != 0 && !listHas(nss, rNs)) return false;
  if (!listHas(get(rule, K_APIGROUPS), rGroup)) return false;
  let anySub = get(rule, K_ANYSUB);
  let res = get(rule, K_RESOURCES);
  if (typeOf(anySub) == T_BOOL && load<u32>(anySub, 4) != 0) {
    if (!listHas(res, rResource)) return false;
  } else if (!listMatches(res, combinedPtr, combinedLen, true)) return false;
  let names = get(rule, K_RESOURCENAMES);
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
  let cond = get(grant, K_GROUP);
  if (typeOf(cond) == T_STRING && !hasGroup(cond)) return false;
  let rules = get(grant, K_RULES);
  if (typeOf(rules) != T_ARRAY) {
    let key = get(grant, K_ROLE);
    if (typeOf(key) != T_STRING) return false;
    rules = get(roles, key);
    if (typeOf(rules) != T_ARRAY) return false; // missing role: no rules (a resolution error upstream)
  }
  let c = arrCount(rules);
  for (let i: u32 = 0; i < c; i++) if (ruleMatches(arrAt(rules, i))) return true;
  return false;
}

/** Unsigned integer of a NUMBER value ("o"); non-numbers sort last. */
function orderOf(v: usize): u32 {
  if (typeOf(v) != T_NUMBER) return 0xffffffff;
  let p = <usize>load<u32>(v, 4);
  let n = load<u32>(v, 8);
  let r: u32 = 0;
  for (let i: u32 = 0; i < n; i++) {
    let c = <u32>load<u8>(p + <usize>i);
    if (c < 0x30 || c > 0x39) break;
    r = r * 10 + (c - 0x30);
  }
  return r;
}

let bestOrder: u32 = 0;
let bestGrant: usize = 0;

function scanList(list: usize): void {
  if (typeOf(list) != T_ARRAY) return;
  let c = arrCount(list);
  for (let i: u32 = 0; i < c; i++) {
    let grant = arrAt(list, i);
    let o = orderOf(get(grant, K_O));
    if (o >= bestOrder) return;
    if (grantMatches(grant)) { bestOrder = o; bestGrant = grant; return; }
  }
}

function scanScope(idx: usize): void {
  if (typeOf(idx) != T_OBJECT) return;
  scanList(get(get(idx, K_USERS), user));
  let byGroup = get(idx, K_GROUPS);
  if (groups != 0 && typeOf(byGroup) == T_OBJECT) {
    let c = arrCount(groups);
    for (let i: u32 = 0; i < c; i++) {
      let g = arrAt(groups, i);
      if (typeOf(g) == T_STRING) scanList(get(byGroup, g));
    }
  }
  scanList(get(idx, K_ANY));
}

/** Decides; returns the reason string value, and sets `allowed`. */
export let allowed = false;

export function decide(data: usize, input: usize): usize {
  allowed = false;
  if (!readInput(input)) return BAD_INPUT;
  let root = get(data, K_PORTCULLIS);
  let scopes = get(root, K_SCOPES);
  roles = get(root, K_ROLES);
  bestOrder = 0xffffffff;
  bestGrant = 0;
  scanScope(get(scopes, K_STAR));
  if (isResource && strLen(rNs) > 0 && typeOf(scopes) == T_OBJECT) {
    let i = objFindBytes(scopes, strPtr(rNs), strLen(rNs));
    if (i >= 0) scanScope(objVal(scopes, <u32>i));
  }
  if (bestGrant == 0) return NO_MATCH;
  allowed = true;
  let reason = get(bestGrant, K_REASON);
  return typeOf(reason) == T_STRING ? reason : EMPTY;
}
