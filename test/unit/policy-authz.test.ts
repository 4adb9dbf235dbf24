// Authorization modes, union semantics, decision cache, atomic swaps, SAR conversion and bundles.
import test from 'ava';
import path from 'node:path';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { mkdtemp, writeFile, readFile } from 'node:fs/promises';
import { buildAuthorizer } from '../../src/authz/build.ts';
import { UnionAuthorizer } from '../../src/authz/union.ts';
import { alwaysAllow, alwaysDeny } from '../../src/authz/always.ts';
import { createAbacAuthorizer } from '../../src/authz/abac.ts';
import { createOpaAuthorizer } from '../../src/authz/opa.ts';
import { toSubjectAccessReview, fromSubjectAccessReviewSpec } from '../../src/authz/sar.ts';
import { compileAbac } from '../../src/policy/abac.ts';
import { readBundle, writeBundle } from '../../src/policy/bundle.ts';
import { readEngine } from '../../src/policy/evaluator.ts';
import { toData } from '../../src/policy/format.ts';
import { run as bundleCli } from '../../src/cli/bundle.ts';
import { run as canI } from '../../src/cli/can-i.ts';
import type { Authorizer, AuthzAttributes, Decision } from '../../src/authz/types.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const P = path.join(root, 'policies', 'abac-example.jsonl');
const attrs = (a: Partial<AuthzAttributes>): AuthzAttributes => ({ isResourceRequest: true, path: '', verb: 'get', apiGroup: '', apiVersion: 'v1', namespace: '', resource: '', subresource: '', name: '', ...a });
const alice = { name: 'alice', groups: ['system:authenticated'] };
const failing: Authorizer = { name: 'Broken', authorize: () => ({ allowed: false, reason: '', error: 'Broken: backend down' }) };
const slowDeny: Authorizer = { name: 'Slow', authorize: async (): Promise<Decision> => ({ allowed: false, reason: 'slow says no' }) };

test('union: any allow wins; none allows + an error → error; else deny with collected reasons', async (t) => {
  const a = attrs({ resource: 'pods', namespace: 'x' });
  t.true((await new UnionAuthorizer([alwaysDeny, alwaysAllow]).authorize(alice, a)).allowed, 'AlwaysDeny,AlwaysAllow allows');
  t.true((await new UnionAuthorizer([failing, alwaysAllow]).authorize(alice, a)).allowed, 'an error does not stop later allows');
  const e = await new UnionAuthorizer([failing, alwaysDeny]).authorize(alice, a);
  t.false(e.allowed); t.is(e.error, 'Broken: backend down'); t.is(e.reason, 'denied by AlwaysDeny');
  const d = await new UnionAuthorizer([alwaysDeny, slowDeny]).authorize(alice, a);
  t.deepEqual(d, { allowed: false, reason: 'denied by AlwaysDeny; slow says no' });
  t.true((await new UnionAuthorizer([slowDeny, alwaysAllow]).authorize(alice, a)).allowed, 'async then sync');
});

test('buildAuthorizer: modes, ABAC + OPA, unknown modes, missing flags, extra authorizers', async (t) => {
  const z = await buildAuthorizer({ modes: ['AlwaysDeny', 'ABAC'], policyFile: P });
  t.deepEqual(z.modes, ['AlwaysDeny', 'ABAC']);
  t.deepEqual(await z.authorize(alice, attrs({ verb: 'update', resource: 'pods', namespace: 'projectCaribou' })), { allowed: true, reason: 'allowed by line 11 of abac-example.jsonl' });
  const no = await z.authorize({ name: 'chuck', groups: [] }, attrs({ verb: 'update', resource: 'pods', namespace: 'x' }));
  t.deepEqual(no, { allowed: false, reason: 'denied by AlwaysDeny; no policy matched' });
  await t.throwsAsync(() => buildAuthorizer({ modes: ['Nope'] }), { message: /unknown authorization mode "Nope"/ });
  await t.throwsAsync(() => buildAuthorizer({ modes: ['ABAC'] }), { message: /requires --authorization-policy-file/ });
  await t.throwsAsync(() => buildAuthorizer({ modes: ['OPA'] }), { message: /requires --authorization-opa-bundle/ });
  await t.throwsAsync(() => buildAuthorizer({ modes: ['RBAC'] }), { message: /RBAC is not available/ });
  const rbac: Authorizer = { name: 'RBAC', authorize: () => ({ allowed: true, reason: 'rbac ok' }) };
  const withRbac = await buildAuthorizer({ modes: ['ABAC', 'RBAC'], policyFile: P, extra: { RBAC: rbac } });
  t.is((await withRbac.authorize({ name: 'zed', groups: [] }, attrs({ resource: 'secrets' }))).reason, 'rbac ok');
});

test('decision cache: hits, and invalidation on every policy change; swaps are atomic', async (t) => {
  const abac = await createAbacAuthorizer(P);
  const req = attrs({ verb: 'delete', resource: 'pods', namespace: 'projectCaribou' });
  const debbie = { name: 'debbie', groups: [] };
  t.true(abac.authorize(debbie, req).allowed);
  t.is(abac.cache!.size, 1);
  t.true(abac.authorize(debbie, req).allowed);
  t.is(abac.cache!.size, 1, 'served from the cache');
  t.true(abac.authorize({ name: 'debbie', groups: ['g'] }, req).allowed);
  t.is(abac.cache!.size, 2, 'groups are part of the key');
  const old = abac.evaluator;
  await abac.setPolicy(compileAbac('{"user":"someone-else"}', 'new.jsonl'));
  t.not(abac.evaluator, old);
  t.is(abac.cache!.size, 0);
  t.false(abac.authorize(debbie, req).allowed, 'new policy in force immediately');
  // a policy that fails to compile never replaces the good one
  const before = abac.evaluator;
  t.throws(() => compileAbac('{bad', 'x.jsonl'));
  t.is(abac.evaluator, before);
  // patch path bumps the generation too
  abac.patch([{ path: ['portcullis', 'scopes', '*', 'users', 'debbie'], value: [{ o: 1, reason: 'patched in', rules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }] }] }]);
  t.deepEqual(abac.authorize(debbie, req), { allowed: true, reason: 'patched in' });
});

test('SubjectAccessReview conversion both ways (webhook vector shape)', (t) => {
  const sar = toSubjectAccessReview({ name: 'jane', uid: '1', groups: ['group1', 'group2'] },
    attrs({ verb: 'get', namespace: 'kittensandponies', apiGroup: 'group3', apiVersion: 'v7beta3', resource: 'pods', subresource: 'proxy', name: 'my-pod' }));
  t.deepEqual(sar, { apiVersion: 'authorization.platform.io/v1beta1', kind: 'SubjectAccessReview', spec: {
    user: 'jane', group: ['group1', 'group2'],
    resourceAttributes: { verb: 'get', namespace: 'kittensandponies', group: 'group3', version: 'v7beta3', resource: 'pods', subresource: 'proxy', name: 'my-pod' },
  } });
  t.deepEqual(toSubjectAccessReview({ name: '', groups: [] }, { ...attrs({}), isResourceRequest: false, verb: '', path: '' }).spec, { nonResourceAttributes: {} });
  const back = fromSubjectAccessReviewSpec(sar.spec);
  t.deepEqual(back.user, { name: 'jane', groups: ['group1', 'group2'] });
  t.deepEqual(back.attrs, attrs({ verb: 'get', namespace: 'kittensandponies', apiGroup: 'group3', apiVersion: 'v7beta3', resource: 'pods', subresource: 'proxy', name: 'my-pod' }));
  t.deepEqual(fromSubjectAccessReviewSpec({ user: 'x', nonResourceAttributes: { path: '/api', verb: 'get' } }).attrs,
    { isResourceRequest: false, path: '/api', verb: 'get', apiGroup: '', apiVersion: '', namespace: '', resource: '', subresource: '', name: '' });
});

async function quiet(fn: () => Promise<number>): Promise<{ code: number; out: string }> {
  const w = process.stdout.write.bind(process.stdout);
  const we = process.stderr.write.bind(process.stderr);
  let out = '';
  process.stdout.write = ((s: string) => { out += s; return true; }) as typeof process.stdout.write;
  process.stderr.write = ((s: string) => { out += s; return true; }) as typeof process.stderr.write;
  try { return { code: await fn(), out }; } finally { process.stdout.write = w; process.stderr.write = we; }
}

test.serial('bundle build → bundle eval → OPA authorizer and can-i --bundle give the same decisions', async (t) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'bundle-'));
  const out = path.join(dir, 'b.tar.gz');
  const built = await quiet(() => bundleCli(['build', '--policy-file', P, '-o', out]));
  t.is(built.code, 0, built.out);
  const b = await readBundle(await readFile(out));
  t.deepEqual(b.manifest.wasm, [{ entrypoint: 'portcullis/authz', module: '/policy.wasm' }, { entrypoint: 'portcullis/allowed', module: '/policy.wasm' }]);
  t.deepEqual(b.data, JSON.parse(JSON.stringify(toData(compileAbac(await readFile(P, 'utf8'), P)))));
  const input = path.join(dir, 'sar.json');
  await writeFile(input, JSON.stringify(toSubjectAccessReview({ name: 'scheduler', groups: [] }, attrs({ verb: 'list', resource: 'pods', namespace: 'n' }))));
  let r = await quiet(() => bundleCli(['eval', out, '--input', input]));
  t.is(r.code, 0); t.deepEqual(JSON.parse(r.out), { allowed: true, reason: 'allowed by line 7 of abac-example.jsonl' });
  await writeFile(input, JSON.stringify(toSubjectAccessReview({ name: 'scheduler', groups: [] }, attrs({ verb: 'create', resource: 'pods', namespace: 'n' }))));
  r = await quiet(() => bundleCli(['eval', out, '--input', input]));
  t.is(r.code, 1); t.deepEqual(JSON.parse(r.out), { allowed: false, reason: 'no policy matched' });
  r = await quiet(() => bundleCli(['eval', out, '--input', input, '--entrypoint', 'portcullis/allowed']));
  t.deepEqual(JSON.parse(r.out), { allowed: false, reason: '' });
  const opa = await createOpaAuthorizer(out);
  const abac = await createAbacAuthorizer(P);
  for (const [u, a] of [['alice', attrs({ verb: 'update', resource: 'widgets', namespace: 'projectCaribou' })], ['chuck', { ...attrs({}), isResourceRequest: false, path: '/root/x' }], ['bob', attrs({ verb: 'delete', resource: 'pods', namespace: 'projectCaribou' })]] as const) {
    const user = { name: u, groups: ['system:authenticated'] };
    t.deepEqual(opa.authorize(user, a), abac.authorize(user, a));
  }
  r = await quiet(() => canI(['get', 'events', '-n', 'x', '--as', 'chuck', '--bundle', out, '--explain']));
  t.is(r.out, 'yes\nallowed by line 6 of abac-example.jsonl\n');
  r = await quiet(() => bundleCli(['bogus']));
  t.is(r.code, 2);
});

test('OPA mode accepts boolean and SubjectAccessReview-with-status results; a bad result is an error', async (t) => {
  // Our engine's boolean entrypoint stands in for a user bundle that returns a bare boolean.
  const dir = await mkdtemp(path.join(os.tmpdir(), 'opa-'));
  const f = path.join(dir, 'u.tar.gz');
  await writeFile(f, await writeBundle(await readEngine(), toData(compileAbac('{"user":"u"}', 'u.jsonl'))));
  const boolAuthz = await createOpaAuthorizer(f, 'portcullis/allowed');
  t.deepEqual(boolAuthz.authorize({ name: 'u', groups: [] }, attrs({ resource: 'pods' })), { allowed: true, reason: '' });
  await t.throwsAsync(() => createOpaAuthorizer(f, 'no/such'), { message: /entrypoint "no\/such" not found/ });
  const { interpretResult } = await import('../../src/policy/evaluator.ts');
  t.deepEqual(interpretResult([{ result: { apiVersion: 'x', kind: 'SubjectAccessReview', status: { allowed: true, reason: 'ok' } } }]), { allowed: true, reason: 'ok' });
  t.deepEqual(interpretResult([]), { allowed: false, reason: 'policy result is undefined' });
  t.throws(() => interpretResult([{ result: 42 }]), { message: /unexpected result/ });
});
