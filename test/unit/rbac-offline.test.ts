// RBAC offline: loading objects from files and directories, the RBAC vectors of §3.3 through the
// offline authorizer and through the CLI (can-i, test, who-can, rbac list, bundle build --rbac).
import test from 'ava';
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';
import { createOfflineRbacAuthorizer, compileRbacFiles, whoCan, rulesOf } from '../../src/authz/rbac/offline.ts';
import { loadRbacFiles } from '../../src/authz/rbac/objects.ts';
import { evaluateCompiled } from '../helpers/policy-oracle.ts';
import { flatRequest, toSubjectAccessReview } from '../../src/authz/sar.ts';
import { attributesFor } from '../../src/cli/can-i.ts';
import { run as canI } from '../../src/cli/can-i.ts';
import { run as testCases } from '../../src/cli/test-cases.ts';
import { run as whoCanCli } from '../../src/cli/who-can.ts';
import { run as rbacCli } from '../../src/cli/rbac.ts';
import { run as bundleCli } from '../../src/cli/bundle.ts';
import type { AuthzAttributes } from '../../src/authz/types.ts';
import { rbacSetups, r18Rules, clusterRole, clusterRoleBinding, role, roleBinding, User, Group, SA, type RbacCase, type RbacDoc } from './rbac-vectors.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'rbac-offline-'));
const BOOTSTRAP = path.resolve('policies/bootstrap-rbac.yaml');

function writeYaml(name: string, docs: unknown[]): string {
  const file = path.join(dir, name);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, docs.map((d) => `---\n${stringify(d)}`).join(''));
  return file;
}

function attrsOf(c: RbacCase): AuthzAttributes {
  return c.path !== undefined ? attributesFor(c.verb, c.path) : attributesFor(c.verb, c.resource!, c.name ?? '', c.namespace ?? '', c.apiGroup ?? '');
}

async function capture(fn: () => Promise<number>): Promise<{ code: number; out: string; err: string }> {
  const o = process.stdout.write.bind(process.stdout);
  const e = process.stderr.write.bind(process.stderr);
  let out = '';
  let err = '';
  process.stdout.write = ((s: string) => { out += s; return true; }) as typeof process.stdout.write;
  process.stderr.write = ((s: string) => { err += s; return true; }) as typeof process.stderr.write;
  try {
    return { code: await fn(), out, err };
  } finally {
    process.stdout.write = o;
    process.stderr.write = e;
  }
}

for (const setup of rbacSetups) {
  test(`${setup.id}: offline authorizer (engine) agrees with the vectors and the reference evaluator`, async (t) => {
    const file = writeYaml(`${setup.id}.yaml`, setup.objects);
    const authz = await createOfflineRbacAuthorizer([file]);
    const compiled = await compileRbacFiles([file]);
    for (const c of setup.cases) {
      const user = { name: c.user, groups: c.groups ?? [] };
      const d = authz.authorize(user, attrsOf(c));
      t.is(d.allowed, c.allow, `${c.id} ${JSON.stringify(c)}`);
      if (c.reason) t.is(d.reason, c.reason, c.id);
      const ref = evaluateCompiled(compiled, toSubjectAccessReview(user, attrsOf(c)));
      t.is(ref.allowed, d.allowed, `${c.id} reference`);
      if (d.allowed) t.is(ref.reason, d.reason);
    }
  });

  test.serial(`${setup.id}: portcullis test --rbac runs every case`, async (t) => {
    const file = writeYaml(`cli/${setup.id}.yaml`, setup.objects);
    const cases = setup.cases.map((c, i) => ({
      name: `${c.id} #${i}`,
      subject: { user: c.user, groups: c.groups ?? [], exactGroups: true },
      attributes: c.path !== undefined ? { verb: c.verb, path: c.path } : { verb: c.verb, resource: c.resource, namespace: c.namespace ?? '', apiGroup: c.apiGroup ?? '', name: c.name ?? '' },
      expected: c.allow ? 'allow' : 'deny',
      ...(c.reason ? { reason: c.reason } : {}),
    }));
    const casesFile = path.join(dir, `cli/${setup.id}-cases.yaml`);
    writeFileSync(casesFile, stringify({ rbac: [path.basename(file)], cases }));
    const r = await capture(() => testCases([casesFile]));
    t.is(r.code, 0, r.out + r.err);
    t.true(r.out.includes(`PASS: ${cases.length}/${cases.length}`), r.out);
  });
}

test.serial('can-i --rbac: yes/no, exit codes, --explain, with --policy-file, directories', async (t) => {
  const file = writeYaml('canI/r1.yaml', rbacSetups[0].objects);
  let r = await capture(() => canI(['get', 'Pods', '-n', 'ns1', '--as', 'joe', '--as-group', 'admins', '--rbac', file, '--explain']));
  t.is(r.code, 0);
  t.is(r.out, 'yes\nRBAC: allowed by RoleBinding "admin/ns1" of ClusterRole "admin" to Group "admins"\n');
  r = await capture(() => canI(['get', 'Pods', '-n', 'ns2', '--as', 'joe', '--as-group', 'admins', '--rbac', path.dirname(file)]));
  t.is(r.code, 1); t.is(r.out, 'no\n');
  // the bootstrap policy: discovery for everybody, nothing else
  r = await capture(() => canI(['get', '/apis/extensions', '--as', 'alice', '--rbac', BOOTSTRAP]));
  t.is(r.code, 0);
  r = await capture(() => canI(['list', 'pods', '-n', 'default', '--as', 'alice', '--rbac', BOOTSTRAP]));
  t.is(r.code, 1);
  r = await capture(() => canI(['delete', 'nodes', 'n1', '--as', 'root', '--as-group', 'system:masters', '--rbac', BOOTSTRAP, '--explain']));
  t.is(r.code, 0); t.regex(r.out, /system:masters/);
  // together with ABAC: a union
  const abac = path.join(dir, 'canI-abac.jsonl');
  writeFileSync(abac, '{"apiVersion":"abac.authorization.platform.io/v1beta1","kind":"Policy","spec":{"user":"alice","namespace":"*","resource":"pods","apiGroup":"*","readonly":true}}\n');
  r = await capture(() => canI(['list', 'pods', '-n', 'default', '--as', 'alice', '--rbac', BOOTSTRAP, '--policy-file', abac]));
  t.is(r.code, 0, r.err);
  r = await capture(() => canI(['list', 'pods', '--as', 'alice', '--rbac', path.join(dir, 'missing.yaml')]));
  t.is(r.code, 2); t.regex(r.err, /missing\.yaml/);
});

test('loading: multi-document files, Lists, directories, other kinds skipped, errors name the file', async (t) => {
  const sub = path.join(dir, 'load');
  writeYaml('load/a.yaml', [clusterRole('r', [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }]), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } }]);
  writeYaml('load/nested/b.yml', [{ apiVersion: 'v1', kind: 'List', items: [clusterRoleBinding('b', 'r', [User('u')]), roleBinding('ns', 'rb', 'ClusterRole', 'r', [SA('sa')])] }]);
  writeFileSync(path.join(sub, 'c.json'), JSON.stringify(role('ns', 'ro', [{ verbs: ['get'], apiGroups: [''], resources: ['secrets'] }])));
  writeFileSync(path.join(sub, 'ignored.txt'), 'not policy');
  const o = await loadRbacFiles([sub]);
  t.deepEqual([o.clusterRoles.length, o.clusterRoleBindings.length, o.roleBindings.length, o.roles.length], [1, 1, 1, 1]);
  const bad = writeYaml('bad/bad.yaml', [clusterRole('bad', [{ verbs: [], apiGroups: [''], resources: ['pods'] }])]);
  await t.throwsAsync(loadRbacFiles([bad]), { message: /bad\.yaml: ClusterRole "bad" is invalid: rules\[0\]\.verbs/ });
  const urlsInRole = writeYaml('bad/ns.yaml', [role('ns', 'x', [{ verbs: ['get'], nonResourceURLs: ['/x'] }])]);
  await t.throwsAsync(loadRbacFiles([urlsInRole]), { message: /namespaced rules cannot apply to non-resource URLs/ });
  const dup = writeYaml('bad/dup.yaml', [clusterRole('r', [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }])]);
  await t.throwsAsync(loadRbacFiles([path.join(sub, 'a.yaml'), dup]), { message: /also defined in/ });
  const noNs = writeYaml('bad/nons.yaml', [{ ...roleBinding('x', 'rb', 'Role', 'r', [User('u')]), metadata: { name: 'rb' } }]);
  await t.throwsAsync(loadRbacFiles([noNs]), { message: /needs metadata.namespace/ });
  const syntax = path.join(dir, 'bad/syntax.yaml');
  writeFileSync(syntax, 'kind: [unclosed');
  await t.throwsAsync(loadRbacFiles([syntax]), { message: /syntax\.yaml: document 1/ });
});

test('R18: effective rules (rule resolution) per user and namespace', async (t) => {
  const file = writeYaml('r18.yaml', rbacSetups.find((s) => s.id === 'R18')!.objects);
  const p = await compileRbacFiles([file]);
  for (const v of r18Rules) t.deepEqual(rulesOf(p, { name: v.user, groups: v.groups }, v.namespace).rules, v.rules, `${v.user}[${v.groups}]@${v.namespace}`);
  // a binding whose role is missing grants nothing and is reported
  const ghost = writeYaml('ghost.yaml', [roleBinding('ns', 'ghost', 'Role', 'missing', [User('ghost')])]);
  const g = rulesOf(await compileRbacFiles([ghost]), { name: 'ghost', groups: [] }, 'ns');
  t.deepEqual(g.rules, []);
  t.deepEqual(g.errors, ['RoleBinding "ghost/ns" of Role "missing" to User "ghost": Role "ns/missing" not found']);
});

test('who-can: every subject with the binding that grants it', async (t) => {
  const objects: RbacDoc[] = [
    clusterRole('reader', [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] }]),
    clusterRole('nodes', [{ verbs: ['*'], apiGroups: [''], resources: ['nodes'] }]),
    clusterRoleBinding('ops', 'nodes', [Group('ops')]),
    clusterRoleBinding('global-readers', 'reader', [User('auditor')]),
    roleBinding('dev', 'dev-readers', 'ClusterRole', 'reader', [User('alice'), Group('devs'), SA('ci', 'build')]),
    roleBinding('prod', 'prod-readers', 'ClusterRole', 'reader', [User('bob')]),
  ];
  const p = await compileRbacFiles([writeYaml('whocan.yaml', objects)]);
  const ask = (a: AuthzAttributes, all = false) => whoCan(p, flatRequest({ name: '', groups: [] }, a), { allNamespaces: all })
    .map((e) => `${e.subject.kind}:${e.subject.namespace ? `${e.subject.namespace}/` : ''}${e.subject.name}@${e.scope}`);
  t.deepEqual(ask(attributesFor('list', 'pods', '', 'dev')), ['Group:system:masters@', 'User:auditor@', 'User:alice@dev', 'ServiceAccount:build/ci@dev', 'Group:devs@dev']);
  t.deepEqual(ask(attributesFor('list', 'pods', '', '')), ['Group:system:masters@', 'User:auditor@']);
  t.deepEqual(ask(attributesFor('list', 'pods', '', ''), true), ['Group:system:masters@', 'User:auditor@', 'User:alice@dev', 'ServiceAccount:build/ci@dev', 'Group:devs@dev', 'User:bob@prod']);
  t.deepEqual(ask(attributesFor('delete', 'pods', 'x', 'dev')), ['Group:system:masters@']);
  t.deepEqual(ask(attributesFor('delete', 'nodes', 'n1')), ['Group:system:masters@', 'Group:ops@']);
});

test.serial('who-can and rbac list commands', async (t) => {
  const file = writeYaml('cmd.yaml', [...rbacSetups.find((s) => s.id === 'R18')!.objects, roleBinding('namespace1', 'sa', 'Role', 'readthings', [SA('robot')])]);
  let r = await capture(() => whoCanCli(['list', 'pods', '-n', 'namespace1', '--rbac', file]));
  t.is(r.code, 0, r.err);
  const lines = r.out.trim().split('\n');
  t.regex(lines[0], /^SUBJECT\s+NAMESPACE\s+GRANTED BY$/);
  t.true(lines.some((l) => /^User foobar\s+namespace1\s+RoleBinding "readthings\/namespace1" of Role "readthings"$/.test(l)), r.out);
  t.true(lines.some((l) => /^Group group1\s+namespace1\s+RoleBinding "readthings\/namespace1" of Role "readthings"$/.test(l)), r.out);
  t.true(lines.some((l) => /^ServiceAccount namespace1\/robot\s+namespace1\s+RoleBinding "sa\/namespace1" of Role "readthings"$/.test(l)), r.out);
  t.true(lines.some((l) => /^User admin\s+\*\s+ClusterRoleBinding "cluster-admins" of ClusterRole "cluster-admin"$/.test(l)), r.out);
  r = await capture(() => whoCanCli(['get', '/healthz', '--rbac', file]));
  t.is(r.code, 1, 'nobody but the privileged group');
  r = await capture(() => whoCanCli(['get', '/healthz', '--rbac', BOOTSTRAP]));
  t.regex(r.out, /Group system:unauthenticated\s+\*\s+ClusterRoleBinding "system:discovery" of ClusterRole "system:discovery"/);
  r = await capture(() => whoCanCli(['get', 'pods']));
  t.is(r.code, 2);

  r = await capture(() => rbacCli(['list', '--as', 'foobar', '-n', 'namespace1', '--rbac', file]));
  t.is(r.code, 0, r.err);
  t.true(r.out.startsWith('foobar [system:authenticated] in namespace namespace1:\n'), r.out);
  t.regex(r.out, /get,list,watch\s+""\s+pods\s+-\s+-\s+namespace1\s+RoleBinding "readthings\/namespace1" of Role "readthings"/);
  t.regex(r.out, /get,list,watch\s+""\s+services\s+/);
  r = await capture(() => rbacCli(['list', '--as', 'foobar', '--rbac', file]));
  t.regex(r.out, /no rules/);
  r = await capture(() => rbacCli(['list', '--as', 'x', '--as-group', 'admin', '--rbac', file]));
  t.regex(r.out, /\*\s+\*\s+\*\s+-\s+-\s+\*\s+ClusterRoleBinding "cluster-admins" of ClusterRole "cluster-admin"/);
  r = await capture(() => rbacCli(['list', '--as', 'root', '--as-group', 'system:masters', '--rbac', BOOTSTRAP]));
  t.regex(r.out, /may do everything/);
  t.regex(r.out, /NonResourceURLs|\/version/);
  r = await capture(() => rbacCli(['list', '--rbac', file]));
  t.is(r.code, 2);
});

test.serial('bundle build --rbac: the bundle decides like the server', async (t) => {
  const file = writeYaml('bundle/r2.yaml', rbacSetups[1].objects);
  const out = path.join(dir, 'bundle/rbac.tar.gz');
  let r = await capture(() => bundleCli(['build', '--rbac', file, '-o', out]));
  t.is(r.code, 0, r.err);
  const sar = path.join(dir, 'bundle/sar.json');
  writeFileSync(sar, JSON.stringify(toSubjectAccessReview({ name: 'foo', groups: [] }, attributesFor('get', '/apis'))));
  r = await capture(() => bundleCli(['eval', out, '--input', sar]));
  t.is(r.code, 0, r.err);
  t.deepEqual(JSON.parse(r.out), { allowed: true, reason: 'RBAC: allowed by ClusterRoleBinding "b1" of ClusterRole "get-apis" to User "foo"' });
});
