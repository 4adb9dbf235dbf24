import test from 'ava';
import { errors, fieldErrorString } from '../../src/request/errors.ts';
import type { ObjectMeta } from '../../src/api/object.ts';
import { validateObjectMeta, validateMetaUpdate, TOTAL_ANNOTATION_SIZE_LIMIT, type ObjectMetaOptions } from '../../src/api/validation/meta.ts';

const sub: ObjectMetaOptions = { namespaced: true, nameRule: 'dns1123-subdomain', isCreate: true };
const strs = (meta: ObjectMeta, opts = sub): string[] => validateObjectMeta(meta, opts).map(fieldErrorString);

test('a valid namespaced object has no errors', (t) => {
  t.deepEqual(strs({ name: 'web-1', namespace: 'default', labels: { app: 'web', 'example.com/tier': '' }, annotations: { 'Example.com/Note': 'anything at all' } }), []);
});

test('name or generateName is required', (t) => {
  t.deepEqual(strs({ namespace: 'default' }), ['metadata.name: Required value: name or generateName is required']);
  const e = errors.invalid('', 'Pod', '', validateObjectMeta({ namespace: 'default' }, sub));
  t.is(e.message, 'Pod "" is invalid: metadata.name: Required value: name or generateName is required');
  t.is(e.code, 422);
  t.deepEqual(e.details?.causes, [{ reason: 'FieldValueRequired', message: 'Required value: name or generateName is required', field: 'metadata.name' }]);
});

test('name rules per kind', (t) => {
  t.deepEqual(strs({ name: 'a.b', namespace: 'x' }), []);
  t.is(strs({ name: 'a.b' }, { namespaced: false, nameRule: 'dns1123-label', isCreate: true })[0].split(': Invalid value: "a.b": ')[1].slice(0, 16), 'a DNS-1123 label');
  t.regex(strs({ name: 'Bad', namespace: 'x' })[0], /^metadata\.name: Invalid value: "Bad": a DNS-1123 subdomain must consist/);
  t.regex(strs({ name: '1abc', namespace: 'x' }, { ...sub, nameRule: 'dns1035-label' })[0], /a DNS-1035 label/);
  t.deepEqual(strs({ name: 'Odd Name:1', namespace: 'x' }, { ...sub, nameRule: 'path-segment' }), []);
  t.deepEqual(strs({ name: 'a/b', namespace: 'x' }, { ...sub, nameRule: 'path-segment' }), [`metadata.name: Invalid value: "a/b": may not contain '/'`]);
});

test('generateName is validated on create only, with the trailing dash masked', (t) => {
  t.deepEqual(strs({ name: 'web-abcde', generateName: 'web-', namespace: 'x' }), []);
  t.regex(strs({ name: 'ok', generateName: 'Web-', namespace: 'x' })[0], /^metadata\.generateName: Invalid value: "Web-": a DNS-1123 subdomain/);
  t.deepEqual(strs({ name: 'ok', generateName: 'Web-', namespace: 'x' }, { ...sub, isCreate: false }), []);
});

test('namespace required / forbidden / format', (t) => {
  t.deepEqual(strs({ name: 'a' }), ['metadata.namespace: Required value']);
  t.deepEqual(strs({ name: 'a', namespace: 'x' }, { ...sub, namespaced: false }), ['metadata.namespace: Forbidden: not allowed on this type']);
  t.regex(strs({ name: 'a', namespace: 'Bad' })[0], /^metadata\.namespace: Invalid value: "Bad": a DNS-1123 label/);
});

test('labels: keys are qualified names, values label values', (t) => {
  const errs = strs({ name: 'a', namespace: 'x', labels: { 'bad key': 'v', ok: '-bad', 'a/b/c': 'x' } });
  t.is(errs.length, 3);
  t.regex(errs[0], /^metadata\.labels: Invalid value: "bad key": name part must consist of/);
  t.regex(errs[1], /^metadata\.labels: Invalid value: "-bad": a valid label must be an empty string/);
  t.regex(errs[2], /^metadata\.labels: Invalid value: "a\/b\/c": a qualified name must consist/);
  t.regex(strs({ name: 'a', namespace: 'x', labels: { k: 'v'.repeat(64) } })[0], /must be no more than 63 characters$/);
});

test('annotations: keys lower-cased, total size ≤ 256 KiB', (t) => {
  t.deepEqual(strs({ name: 'a', namespace: 'x', annotations: { 'UPPER.example.com/Key': 'v' } }), []);
  t.regex(strs({ name: 'a', namespace: 'x', annotations: { '-x': 'v' } })[0], /^metadata\.annotations: Invalid value: "-x": name part/);
  const key = 'k';
  t.deepEqual(strs({ name: 'a', namespace: 'x', annotations: { [key]: 'v'.repeat(TOTAL_ANNOTATION_SIZE_LIMIT - 1) } }), []);
  t.deepEqual(strs({ name: 'a', namespace: 'x', annotations: { [key]: 'v'.repeat(TOTAL_ANNOTATION_SIZE_LIMIT) } }), ['metadata.annotations: Too long: must have at most 262144 characters']);
});

test('ownerReferences', (t) => {
  const good = { apiVersion: 'v1', kind: 'ReplicationController', name: 'rc', uid: 'u1', controller: true };
  t.deepEqual(strs({ name: 'a', namespace: 'x', ownerReferences: [good] }), []);
  t.deepEqual(strs({ name: 'a', namespace: 'x', ownerReferences: [{ apiVersion: 'extensions/', kind: '', name: '', uid: '' }] }), [
    'metadata.ownerReferences.apiVersion: Invalid value: "extensions/": version must not be empty',
    'metadata.ownerReferences.kind: Invalid value: "": kind must not be empty',
    'metadata.ownerReferences.name: Invalid value: "": name must not be empty',
    'metadata.ownerReferences.uid: Invalid value: "": uid must not be empty',
  ]);
  const ev = strs({ name: 'a', namespace: 'x', ownerReferences: [{ apiVersion: 'v1', kind: 'Event', name: 'e', uid: 'u' }] });
  t.is(ev.length, 1);
  t.regex(ev[0], /\/v1, Kind=Event is disallowed from being an owner$/);
  const two = strs({ name: 'a', namespace: 'x', ownerReferences: [good, { ...good, name: 'rc2', uid: 'u2' }] });
  t.is(two.length, 1);
  t.regex(two[0], /Only one reference can have Controller set to true\. Found "true" in references for rc and rc2$/);
});

test('finalizers', (t) => {
  t.deepEqual(strs({ name: 'a', namespace: 'x', finalizers: ['orphan', 'example.com/cleanup'] }), []);
  t.regex(strs({ name: 'a', namespace: 'x', finalizers: ['bad finalizer'] })[0], /^metadata\.finalizers: Invalid value: "bad finalizer": name part/);
  t.deepEqual(strs({ name: 'a', namespace: 'x', finalizers: ['orphan', 'foregroundDeletion'] }), [
    'metadata.finalizers: Invalid value: ["orphan","foregroundDeletion"]: finalizer orphan and foregroundDeletion cannot be both set',
  ]);
});

test('generation must not be negative', (t) => {
  t.deepEqual(strs({ name: 'a', namespace: 'x', generation: -1 }), ['metadata.generation: Invalid value: -1: must be greater than or equal to 0']);
});

const old: ObjectMeta = { name: 'a', namespace: 'x', uid: 'u1', creationTimestamp: '2016-10-05T12:34:56Z', generation: 3, resourceVersion: '5' };
const upd = (m: ObjectMeta, o: ObjectMeta = old): string[] => validateMetaUpdate(m, o).map(fieldErrorString);

test('update: unchanged metadata is fine, empty uid counts as unchanged', (t) => {
  t.deepEqual(upd({ ...old }), []);
  t.deepEqual(upd({ ...old, uid: undefined, creationTimestamp: undefined, labels: { new: 'label' } }), []);
});

test('update: immutable system fields', (t) => {
  t.deepEqual(upd({ ...old, uid: 'u2' }), ['metadata.uid: Invalid value: "u2": field is immutable']);
  t.deepEqual(upd({ ...old, name: 'b' }), ['metadata.name: Invalid value: "b": field is immutable']);
  t.deepEqual(upd({ ...old, creationTimestamp: '2020-01-01T00:00:00Z' }), ['metadata.creationTimestamp: Invalid value: "2020-01-01T00:00:00Z": field is immutable']);
  t.deepEqual(upd({ ...old, generation: 2 }), ['metadata.generation: Invalid value: 2: must not be decremented']);
  t.deepEqual(upd({ ...old, deletionTimestamp: '2020-01-01T00:00:00Z' }), [
    'metadata.deletionTimestamp: Invalid value: "2020-01-01T00:00:00Z": field is immutable; may only be changed via deletion',
  ]);
  t.deepEqual(upd({ ...old, deletionGracePeriodSeconds: 5 }), ['metadata.deletionGracePeriodSeconds: Invalid value: 5: field is immutable; may only be changed via deletion']);
});

test('update: no new finalizers while deleting', (t) => {
  const deleting = { ...old, deletionTimestamp: '2020-01-01T00:00:00Z', finalizers: ['a.io/x'] };
  t.deepEqual(upd({ ...deleting, finalizers: [] }, deleting), [], 'removing is fine');
  t.deepEqual(upd({ ...deleting, finalizers: ['a.io/x', 'b.io/y', 'a.io/z'] }, deleting), [
    'metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"a.io/z", "b.io/y"}',
  ]);
  t.deepEqual(upd({ ...old, finalizers: ['b.io/y'] }), [], 'adding is fine when not deleting');
});
