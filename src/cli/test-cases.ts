// portcullis test CASES.yaml [--policy-file F... | --rbac FILE|DIR... | --bundle B [--entrypoint E]] [-v]
// Runs policy test cases through the same authorizers as the server and reports like `opa test`.
//
// File format:
//   policyFiles: [example.jsonl]        # optional, relative to the cases file (flags override)
//   rbac: [bootstrap-rbac.yaml]         # optional: RBAC objects (files or directories)
//   bundle: example.tar.gz              # optional
//   cases:
//     - name: alice lists pods
//       subject: {user: alice, groups: [dev], exactGroups: false}
//       attributes: {verb: list, resource: pods, namespace: projectCaribou, apiGroup: "", name: ""}
//       # non-resource: attributes: {verb: get, path: /api}
//       expected: allow                 # allow | deny
//       reason: line 10                 # optional: the reason must contain this text
// The YAML parser and the evaluators are imported after parsing: `test --help` loads none of them.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Authorizer, AuthzAttributes } from '../authz/types.ts';
import { parseCommand } from './command.ts';
import { entrypointFlag, helpFlag, policySourceFlags, policySourceValues } from './common-flags.ts';

const spec = {
  usage: ['portcullis test CASES.yaml [--policy-file F... | --rbac FILE|DIR... | --bundle B [--entrypoint E]] [-v]'],
  about: 'Runs policy test cases through the same authorizers as the server. Policy flags override the sources the file names.',
  flags: [
    ...policySourceFlags,
    entrypointFlag,
    { name: 'verbose', key: 'verbose', type: 'bool', short: 'v', help: 'Also list the cases that pass.' },
    helpFlag,
  ],
  positionals: [1, 1],
} as const;

export interface PolicyCase {
  name?: string;
  subject: { user: string; groups?: string[]; exactGroups?: boolean };
  attributes: { verb: string; resource?: string; subresource?: string; name?: string; namespace?: string; apiGroup?: string; path?: string };
  expected: 'allow' | 'deny';
  reason?: string;
}

export interface CasesFile {
  policyFiles?: string[];
  rbac?: string[];
  bundle?: string;
  entrypoint?: string;
  cases: PolicyCase[];
}

export interface CaseResult { case: PolicyCase; index: number; pass: boolean; got: string; reason: string }

function validate(doc: unknown, file: string): CasesFile {
  const bad = (why: string): never => { throw new Error(`${file}: ${why}`); };
  if (!doc || typeof doc !== 'object') bad('expected a mapping with a "cases" list');
  const d = doc as CasesFile;
  if (!Array.isArray(d.cases)) bad('"cases" must be a list');
  if (d.rbac !== undefined && (!Array.isArray(d.rbac) || d.rbac.some((f) => typeof f !== 'string'))) bad('"rbac" must be a list of paths');
  d.cases.forEach((c, i) => {
    const where = `case ${i + 1}${c?.name ? ` (${c.name})` : ''}`;
    if (!c || typeof c !== 'object') bad(`${where}: must be a mapping`);
    if (!c.subject || typeof c.subject.user !== 'string') bad(`${where}: subject.user is required`);
    if (!c.attributes || typeof c.attributes.verb !== 'string') bad(`${where}: attributes.verb is required`);
    if (c.expected !== 'allow' && c.expected !== 'deny') bad(`${where}: expected must be allow or deny`);
  });
  return d;
}

export async function runCases(authorizer: Authorizer, cases: PolicyCase[]): Promise<CaseResult[]> {
  const { withDefaultGroups } = await import('../authz/offline.ts');
  const out: CaseResult[] = [];
  for (let i = 0; i < cases.length; i++) {
    const c = cases[i];
    const a = c.attributes;
    const user = c.subject.exactGroups ? { name: c.subject.user, groups: c.subject.groups ?? [] } : withDefaultGroups(c.subject.user, c.subject.groups ?? []);
    const [resource = '', sub = ''] = (a.resource ?? '').split('/', 2);
    const attrs: AuthzAttributes = a.path !== undefined
      ? { isResourceRequest: false, path: a.path, verb: a.verb, apiGroup: '', apiVersion: '', namespace: '', resource: '', subresource: '', name: '' }
      : { isResourceRequest: true, path: '', verb: a.verb, apiGroup: a.apiGroup ?? '', apiVersion: '', namespace: a.namespace ?? '', resource, subresource: a.subresource ?? sub, name: a.name ?? '' };
    const d = await authorizer.authorize(user, attrs);
    const got = d.error && !d.allowed ? 'error' : d.allowed ? 'allow' : 'deny';
    const reasonOk = c.reason === undefined || d.reason.includes(c.reason);
    out.push({ case: c, index: i, pass: got === c.expected && reasonOk, got, reason: d.error ?? d.reason });
  }
  return out;
}

export async function run(argv: string[]): Promise<number> {
  const line = parseCommand(spec, argv);
  if (typeof line === 'number') return line;
  const { values: v, positionals: [file] } = line;
  try {
    const [{ parse: parseYaml }, { authorizerFromSources }] = await Promise.all([import('yaml'), import('../authz/offline.ts')]);
    const doc = validate(parseYaml(await readFile(file, 'utf8')), file);
    const dir = path.dirname(file);
    const sourceValues = policySourceValues(v);
    const anyFlag = Object.values(sourceValues).some((x) => x && x.length);
    if (!anyFlag) {
      if (doc.policyFiles?.length) sourceValues['policy-file'] = doc.policyFiles.map((f) => path.resolve(dir, f));
      if (doc.rbac?.length) sourceValues.rbac = doc.rbac.map((f) => path.resolve(dir, f));
      if (doc.bundle) sourceValues.bundle = [path.resolve(dir, doc.bundle)];
    }
    const authorizer = await authorizerFromSources(sourceValues, v.entrypoint ?? doc.entrypoint);
    const results = await runCases(authorizer, doc.cases);
    const failed = results.filter((r) => !r.pass);
    for (const r of results) {
      const label = `${file}: ${r.case.name ?? `case ${r.index + 1}`}`;
      if (!r.pass) {
        process.stdout.write(`FAIL: ${label}\n  expected ${r.case.expected}${r.case.reason ? ` (reason containing ${JSON.stringify(r.case.reason)})` : ''}, got ${r.got}${r.reason ? `: ${r.reason}` : ''}\n`);
      } else if (v.verbose) process.stdout.write(`PASS: ${label}\n`);
    }
    process.stdout.write(`${'-'.repeat(80)}\n`);
    process.stdout.write(`PASS: ${results.length - failed.length}/${results.length}\n`);
    if (failed.length) process.stdout.write(`FAIL: ${failed.length}/${results.length}\n`);
    return failed.length ? 1 : 0;
  } catch (e) {
    process.stderr.write(`error: ${(e as Error).message}\n`);
    return 2;
  }
}
