// SelfSubjectRulesReview through the real server: exact RBAC rules from the live compiled policy,
// everything for AlwaysAllow and the privileged, incomplete with the reference's evaluationError for an
// authorizer that cannot list its rules (ABAC). Needs the server to hand the resolver to the kind's
// handler (src/server/api-backend.ts hands the handler the authorizer union's rulesFor).
import test from 'ava';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startRbacServer, MASTER, type RbacServer } from './rbac-harness.ts';
import { startServer } from '../helpers/server.ts';
import { role, roleBinding, User } from '../unit/rbac-vectors.ts';

let s: RbacServer;

test.before(async () => {
  s = await startRbacServer({ 'alice-token': ['alice', ['devs']], 'bob-token': ['bob', []] });
  await s.apply(role('team', 'pod-reader', [
    { verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] },
    { verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['settings'] },
  ]));
  await s.apply(roleBinding('team', 'alice-reads', 'Role', 'pod-reader', [User('alice')]));
});
test.after.always(() => s?.close());

const rulesReview = (token: string, namespace?: string, headers: Record<string, string> = {}) =>
  s.req(token, 'POST', '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews', { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectRulesReview', spec: namespace === undefined ? {} : { namespace } }, headers);

test('SelfSubjectRulesReview lists exactly the RBAC rules that apply in the namespace, live', async (t) => {
  const r = await rulesReview('alice-token', 'team');
  t.is(r.status, 201, r.text);
  t.like(r.json, { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectRulesReview', spec: { namespace: 'team' }, status: { incomplete: false } });
  t.is(r.json.status.evaluationError, undefined);
  const rules = r.json.status.resourceRules;
  t.deepEqual(rules.filter((x: { apiGroups: string[] }) => x.apiGroups.includes('')), [
    { verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] },
    { verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['settings'] },
  ]);
  // the bootstrap basic-user and discovery roles apply everywhere
  t.true(rules.some((x: { resources: string[]; apiGroups: string[] }) => x.apiGroups.includes('authorization.k8s.io') && x.resources.includes('selfsubjectrulesreviews')));
  t.true(r.json.status.nonResourceRules.some((x: { nonResourceURLs: string[] }) => x.nonResourceURLs.includes('/apis')));

  // another namespace: only the cluster-wide grants
  const other = await rulesReview('alice-token', 'other');
  t.false(other.json.status.resourceRules.some((x: { resources: string[] }) => x.resources.includes('pods')));

  // a new binding shows at once (the live compiled policy)
  await s.apply(roleBinding('other', 'alice-reads', 'ClusterRole', 'view', [User('alice')]));
  const now = await rulesReview('alice-token', 'other');
  t.true(now.json.status.resourceRules.some((x: { resources: string[]; verbs: string[] }) => x.resources.includes('pods') && x.verbs.includes('watch')));

  // impersonated: the rules of who is impersonated
  const bob = await rulesReview(MASTER, 'team', { 'impersonate-user': 'bob' });
  t.false(bob.json.status.resourceRules.some((x: { resources: string[] }) => x.resources.includes('pods')));
});

test('SelfSubjectRulesReview: a privileged user may do everything; a missing role is named; no namespace is a 400', async (t) => {
  const root = await rulesReview(MASTER, 'team');
  t.deepEqual(root.json.status, {
    resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
    nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
    incomplete: false,
  });
  await s.apply(roleBinding('team', 'dangling', 'Role', 'not-there', [User('bob')]));
  const bob = await rulesReview('bob-token', 'team');
  t.is(bob.status, 201, bob.text);
  t.false(bob.json.status.incomplete);
  t.regex(bob.json.status.evaluationError, /not-there/);
  const none = await rulesReview('alice-token');
  t.is(none.status, 400);
  t.is(none.json.message, 'no namespace on request');
});

test('SelfSubjectRulesReview under an authorizer that cannot list rules is incomplete and says why', async (t) => {
  const allow = await startServer();
  t.teardown(() => allow.close());
  const everything = await allow.req('POST', '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews', { spec: { namespace: 'default' } });
  t.is(everything.status, 201, everything.text);
  t.false(everything.json.status.incomplete);
  t.deepEqual(everything.json.status.resourceRules, [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }]);

  const dir = mkdtempSync(path.join(tmpdir(), 'compat-abac-'));
  const policy = path.join(dir, 'abac.jsonl');
  writeFileSync(policy, JSON.stringify({ apiVersion: 'abac.authorization.platform.io/v1beta1', kind: 'Policy', spec: { group: 'system:unauthenticated', apiGroup: 'authorization.k8s.io', resource: 'selfsubjectrulesreviews' } }) + '\n');
  const abac = await startServer({ authorizationMode: ['ABAC', 'AlwaysDeny'], authorizationPolicyFile: policy });
  t.teardown(() => abac.close());
  const r = await abac.req('POST', '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews', { spec: { namespace: 'default' } });
  t.is(r.status, 201, r.text);
  t.deepEqual(r.json.status, { resourceRules: [], nonResourceRules: [], incomplete: true, evaluationError: 'ABAC authorizer does not support user rule resolution' });
});
