import test from 'ava';
import type { ListMergeRule } from '../../src/api/strategy.ts';
import { conditionsRule, containerListRules, objectMetaRules, podSpecRules, podTemplateRules } from '../../src/api/merge-rules.ts';
import { KINDS_WITH_MERGE_RULES, mergeRulesFor } from '../../src/kinds/strategies.ts';

function keyAt(rules: ListMergeRule[], path: string): string | undefined | null {
  const rule = rules.find((r) => r.path === path);
  if (!rule) return null; // no rule: the list is replaced
  return rule.mergeKey; // undefined: a primitive set
}

test('every kind gets the ObjectMeta rules', (t) => {
  for (const kind of ['ConfigMap', 'Secret', 'Pod', 'Deployment', 'SomethingUnknown']) {
    const rules = mergeRulesFor(kind);
    t.is(keyAt(rules, 'metadata.ownerReferences'), 'uid', kind);
    t.is(keyAt(rules, 'metadata.finalizers'), undefined, kind);
  }
});

test('Pod: the §5.1 table, with the modern volumeMounts key', (t) => {
  const rules = mergeRulesFor('Pod');
  const expected: Record<string, string | undefined> = {
    'spec.containers': 'name',
    'spec.initContainers': 'name',
    'spec.volumes': 'name',
    'spec.imagePullSecrets': 'name',
    'spec.containers[].env': 'name',
    'spec.containers[].ports': 'containerPort',
    'spec.containers[].volumeMounts': 'mountPath',
    'spec.initContainers[].env': 'name',
    'spec.initContainers[].volumeMounts': 'mountPath',
    'status.conditions': 'type',
  };
  for (const [path, key] of Object.entries(expected)) t.is(keyAt(rules, path), key, path);
  t.is(keyAt(rules, 'spec.tolerations'), null, 'tolerations are replaced');
  t.is(keyAt(rules, 'spec.containers[].args'), null, 'args are replaced');
});

test('workloads carry the pod rules under spec.template', (t) => {
  for (const kind of ['Deployment', 'ReplicaSet', 'ReplicationController', 'DaemonSet', 'Job', 'StatefulSet']) {
    const rules = mergeRulesFor(kind);
    t.is(keyAt(rules, 'spec.template.spec.containers'), 'name', kind);
    t.is(keyAt(rules, 'spec.template.spec.containers[].env'), 'name', kind);
    t.is(keyAt(rules, 'spec.template.spec.containers[].ports'), 'containerPort', kind);
    t.is(keyAt(rules, 'spec.template.spec.volumes'), 'name', kind);
    t.is(keyAt(rules, 'spec.template.metadata.finalizers'), undefined, kind);
    t.is(keyAt(rules, 'status.conditions'), 'type', kind);
    t.is(keyAt(rules, 'spec.containers'), null, `${kind} has no top-level pod spec`);
  }
});

test('PodTemplate has its pod spec under template', (t) => {
  const rules = mergeRulesFor('PodTemplate');
  t.is(keyAt(rules, 'template.spec.containers'), 'name');
  t.is(keyAt(rules, 'template.spec.containers[].volumeMounts'), 'mountPath');
});

test('Node, Service, ServiceAccount, ComponentStatus, Namespace', (t) => {
  t.is(keyAt(mergeRulesFor('Node'), 'status.conditions'), 'type');
  t.is(keyAt(mergeRulesFor('Node'), 'status.addresses'), 'type');
  t.is(keyAt(mergeRulesFor('Service'), 'spec.ports'), 'port');
  t.is(keyAt(mergeRulesFor('ServiceAccount'), 'secrets'), 'name');
  t.is(keyAt(mergeRulesFor('ComponentStatus'), 'conditions'), 'type');
  t.is(keyAt(mergeRulesFor('Namespace'), 'status.conditions'), 'type');
  t.is(keyAt(mergeRulesFor('Namespace'), 'spec.finalizers'), null);
});

test('rule paths are well formed and unique per kind', (t) => {
  for (const kind of KINDS_WITH_MERGE_RULES) {
    const rules = mergeRulesFor(kind);
    const paths = rules.map((r) => r.path);
    t.is(new Set(paths).size, paths.length, `${kind}: duplicate paths`);
    for (const p of paths) t.regex(p, /^[A-Za-z]+(\[\])?(\.[A-Za-z]+(\[\])?)*$/, `${kind}: ${p}`);
  }
});

test('the building blocks compose by prefix', (t) => {
  t.deepEqual(objectMetaRules('x.metadata').map((r) => r.path), ['x.metadata.ownerReferences', 'x.metadata.finalizers']);
  t.true(containerListRules('a.b').every((r) => r.path.startsWith('a.b')));
  t.true(podSpecRules('p').some((r) => r.path === 'p.containers[].env'));
  t.true(podTemplateRules('t').some((r) => r.path === 't.metadata.ownerReferences'));
  t.deepEqual(conditionsRule(), { path: 'status.conditions', mergeKey: 'type' });
  t.deepEqual(conditionsRule(''), { path: 'conditions', mergeKey: 'type' });
});

test('mergeRulesFor returns a fresh array each time', (t) => {
  const a = mergeRulesFor('Pod');
  a.push({ path: 'x' });
  t.false(mergeRulesFor('Pod').some((r) => r.path === 'x'));
});
