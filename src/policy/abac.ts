// ABAC policy files (JSON lines) → normalized policies → compiled grants.
// Semantics: shared/reference/authn-authz.md §2 (1.6+ meaning of "*" as group system:authenticated).
import path from 'node:path';
import { addGrant, emptyPolicy, type CompiledPolicy, type Grant, type Rule } from './format.ts';

export const ABAC_API_VERSION = 'abac.authorization.platform.io/v1beta1';
export const ALL_AUTHENTICATED = 'system:authenticated';
export const READ_VERBS = ['get', 'list', 'watch'];

/** A policy line after version conversion: every field is the value matching compares against. */
export interface AbacPolicy {
  user: string;
  group: string;
  readonly: boolean;
  apiGroup: string;
  resource: string;
  namespace: string;
  nonResourcePath: string;
}

export interface AbacLine {
  line: number;
  policy: AbacPolicy;
  /** True for a legacy unversioned (v0) line. */
  legacy: boolean;
}

export class PolicyFileError extends Error {
  constructor(readonly file: string, readonly line: number, readonly text: string, readonly why: string) {
    super(`error reading policy file ${file}, line ${line}: ${text}: ${why}`);
  }
}

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function field(o: Json, k: string, kind: 'string' | 'boolean', fail: (why: string) => never): string | boolean {
  const v = o[k];
  if (v === undefined || v === null) return kind === 'string' ? '' : false;
  if (typeof v !== kind) fail(`field "${k}" must be a ${kind}`);
  return v as string | boolean;
}

/** v1beta1 (CONV1, 1.6+): "*" user or group means every authenticated user. */
function fromV1beta1(spec: Json, fail: (why: string) => never): AbacPolicy {
  const s = (k: string) => field(spec, k, 'string', fail) as string;
  const p: AbacPolicy = {
    user: s('user'), group: s('group'), readonly: field(spec, 'readonly', 'boolean', fail) as boolean,
    apiGroup: s('apiGroup'), resource: s('resource'), namespace: s('namespace'), nonResourcePath: s('nonResourcePath'),
  };
  if (p.user === '*' || p.group === '*') { p.group = ALL_AUTHENTICATED; p.user = ''; }
  return p;
}

/** v0 (CONV0, 1.6+): subject-less → authenticated; empty namespace/resource → "*"; apiGroup "*". */
function fromV0(o: Json, fail: (why: string) => never): AbacPolicy {
  const s = (k: string) => field(o, k, 'string', fail) as string;
  let user = s('user');
  let group = s('group');
  if ((user === '' && group === '') || user === '*' || group === '*') { group = ALL_AUTHENTICATED; user = ''; }
  const ns = s('namespace');
  const res = s('resource');
  return {
    user, group, readonly: field(o, 'readonly', 'boolean', fail) as boolean, apiGroup: '*',
    namespace: ns === '' ? '*' : ns, resource: res === '' ? '*' : res,
    nonResourcePath: ns === '' && res === '' ? '*' : '',
  };
}

/** Parses a policy file; a bad line throws PolicyFileError naming the file, line and reason. */
export function parseAbac(text: string, fileName: string): AbacLine[] {
  const out: AbacLine[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i].replace(/\r$/, '');
    const trimmed = raw.trim();
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    const fail = (why: string): never => { throw new PolicyFileError(fileName, i + 1, trimmed, why); };
    let doc: unknown;
    try { doc = JSON.parse(trimmed); } catch (e) { fail((e as Error).message); }
    if (!isObject(doc)) fail('a policy line must be a JSON object');
    const o = doc as Json;
    if (o.apiVersion !== undefined || o.kind !== undefined) {
      if (o.apiVersion !== ABAC_API_VERSION) fail(`unsupported apiVersion ${JSON.stringify(o.apiVersion)} (want ${ABAC_API_VERSION})`);
      if (o.kind !== 'Policy') fail(`unsupported kind ${JSON.stringify(o.kind)} (want Policy)`);
      if (!isObject(o.spec)) fail('spec must be an object');
      out.push({ line: i + 1, policy: fromV1beta1(o.spec as Json, fail), legacy: false });
    } else {
      out.push({ line: i + 1, policy: fromV0(o, fail), legacy: true });
    }
  }
  return out;
}

/** The unified rule for one ABAC policy. */
export function abacRule(p: AbacPolicy): Rule {
  return {
    verbs: p.readonly ? READ_VERBS : ['*'],
    namespaces: [p.namespace],
    apiGroups: [p.apiGroup],
    resources: [p.resource],
    anySubresource: true,
    nonResourceURLs: [p.nonResourcePath],
  };
}

export interface AbacCompileOptions {
  /** Added to every line number to order grants after other sources (multi-file merges). */
  orderBase?: number;
}

/** Compiles parsed lines into grants indexed by user, else by group. Subject-less lines never match. */
export function compileAbacLines(lines: AbacLine[], fileName: string, opts: AbacCompileOptions = {}): CompiledPolicy {
  const policy = emptyPolicy();
  const base = opts.orderBase ?? 0;
  const shown = path.basename(fileName);
  for (const { line, policy: p } of lines) {
    if (p.user === '' && p.group === '') continue; // matched starts false: such a line can never allow
    const grant: Grant = { o: base + line, reason: `allowed by line ${line} of ${shown}`, rules: [abacRule(p)] };
    if (p.user !== '') addGrant(policy, '*', 'users', p.user, p.group !== '' ? { ...grant, group: p.group } : { ...grant });
    else addGrant(policy, '*', 'groups', p.group, { ...grant });
  }
  return policy;
}

export function compileAbac(text: string, fileName: string, opts: AbacCompileOptions = {}): CompiledPolicy {
  return compileAbacLines(parseAbac(text, fileName), fileName, opts);
}
