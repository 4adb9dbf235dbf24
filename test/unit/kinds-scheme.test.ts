// The seams of the kind modules: the catalogue built from src/kinds/index.ts, the strategy on each
// row, the handlers the rows name, the scheme's decode/encode, the one storage-error mapping.
import { STREAMING_SUBRESOURCES } from '../../src/registry/kubelet/service.ts';
import test from 'ava';
import { handlerFactoryFor, resources } from '../../src/kinds/catalogue.ts';
import { handlerKey } from '../../src/registry/dispatch.ts';
import { strategyFor } from '../../src/kinds/strategies.ts';
import { decode, encode, storageVersionOf } from '../../src/api/scheme.ts';
import { kinds } from '../../src/kinds/index.ts';
import { conflictStatus, storageErrorStatus } from '../../src/registry/storage-errors.ts';
import { StatusError } from '../../src/request/errors.ts';
import { BackendConflict, BackendExpired, BackendRejected } from '../../src/store/backend.ts';
import type { ApiObject } from '../../src/api/object.ts';

const def = (group: string, plural: string) => resources.find((r) => r.group === group && r.plural === plural)!;

test('every served row carries the strategy of its kind module', (t) => {
  for (const r of resources) {
    // a row whose converter carries its version's defaults and rules has them beside the kind's
    if (r.converter?.defaults || r.converter?.validate) {
      const { defaults, validate, ...rest } = r.strategy;
      const { defaults: kindDefaults, validate: _v, ...kindRest } = strategyFor(r.kind);
      t.deepEqual(rest, kindRest, `${r.group}/${r.plural}`);
      t.is(defaults, r.converter.defaults ?? kindDefaults);
      t.is(typeof validate, 'function');
    } else t.is(r.strategy, strategyFor(r.kind), `${r.group}/${r.plural}`);
  }
  t.is(new Set(kinds.map((m) => m.kind)).size, kinds.length, 'one module per kind');
});

test('every subresource beyond status names its handler; virtual kinds served here do too', (t) => {
  for (const r of resources) {
    // the kubelet-facing ones are served on the raw request by src/registry/kubelet/, not by a handler factory
    for (const s of r.subresources) t.is(s.name === 'status' || STREAMING_SUBRESOURCES.has(s.name), !handlerFactoryFor(handlerKey(r, s.name)), `${r.plural}/${s.name}`);
  }
  t.truthy(handlerFactoryFor(handlerKey(def('', 'bindings'), '')));
  t.truthy(handlerFactoryFor(handlerKey(def('', 'componentstatuses'), '')));
  t.falsy(handlerFactoryFor(handlerKey(def('authentication.platform.io', 'tokenreviews'), '')), 'reviews are served by the authorization side');
});

test('a kind served by two groups is stored in its storage group-version', (t) => {
  t.is(storageVersionOf(def('extensions', 'jobs')), 'batch/v1');
  t.is(storageVersionOf(def('extensions', 'horizontalpodautoscalers')), 'autoscaling/v1');
  t.is(storageVersionOf(def('', 'pods')), 'v1');
  t.is(storageVersionOf(def('apps', 'deployments')), 'extensions/v1beta1');
  t.is(storageVersionOf(def('networking.k8s.io', 'ingresses')), 'extensions/v1beta1');
  t.is(storageVersionOf(def('rbac.authorization.k8s.io', 'rolebindings')), 'rbac.authorization.platform.io/v1alpha1');
});

test('the scheme decodes a body into a kind and encodes it for its served version', (t) => {
  const jobs = def('extensions', 'jobs');
  const obj = decode(jobs, { metadata: { name: 'j', namespace: 'ns' }, spec: {} });
  t.is(obj.kind, 'Job');
  t.is(obj.apiVersion, 'extensions/v1beta1');
  const served = encode(def('batch', 'jobs'), Object.freeze(obj) as ApiObject, 'status');
  t.is(served.apiVersion, 'batch/v1');
  t.is(served.metadata.selfLink, '/apis/batch/v1/namespaces/ns/jobs/j/status');
  t.throws(() => decode(jobs, { apiVersion: 'v1' }), { instanceOf: StatusError, message: /does not match the expected API version/ });
  t.throws(() => decode(jobs, []), { instanceOf: StatusError });
});

test('storage failures map to one Status each', (t) => {
  const target = { gr: { group: '', resource: 'pods' }, name: 'p' };
  t.is(conflictStatus('exists', target).code, 409);
  t.is(conflictStatus('missing', target).code, 404);
  t.is(conflictStatus('modified', target).reason, 'Conflict');
  t.is(storageErrorStatus(new BackendConflict('modified', 'x')), undefined, 'a conflict without its object is no client error');
  t.is(storageErrorStatus(new BackendExpired('gone'))?.code, 503);
  t.is(storageErrorStatus(new BackendRejected('too-large', 'limit is 1'))?.code, 413);
  t.is(storageErrorStatus(new BackendRejected('timeout', 'slow'))?.code, 504);
  t.is(storageErrorStatus(new BackendRejected('unavailable', 'down'))?.code, 503);
  t.is(storageErrorStatus(new Error('other')), undefined);
});
