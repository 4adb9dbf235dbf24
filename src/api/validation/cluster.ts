// Namespace and Node (v1, cluster-scoped).
import { wireText } from '../safe-json.ts';
import { errors, field, type FieldError } from '../../request/errors.ts';
import type { ApiObject } from '../object.ts';
import { isQualifiedName } from './names.ts';
import { validateResourceList, isCIDR } from './common.ts';
import { asArray, asObject, asString, ensureObject, path, type JsonObject } from './json.ts';

type Mutable = ApiObject & JsonObject;

/** The finalizer the namespace controller removes once a namespace is empty. */
export const FINALIZER_PLATFORM = 'platform';
const standardFinalizers = new Set([FINALIZER_PLATFORM, 'orphan']);

/** Create forces phase Active and appends the platform finalizer. */
export function prepareNamespaceForCreate(obj: Mutable): void {
  obj.status = { phase: 'Active' };
  const spec = ensureObject(obj, 'spec');
  const finalizers = (asArray(spec.finalizers) ?? []).filter((f): f is string => typeof f === 'string');
  if (!finalizers.includes(FINALIZER_PLATFORM)) finalizers.push(FINALIZER_PLATFORM);
  spec.finalizers = finalizers;
}

/** A main PUT (and a status PUT) cannot change spec.finalizers: only `/finalize` takes them from the body. */
export function prepareNamespaceForUpdate(obj: Mutable, old: ApiObject, subresource = ''): void {
  if (subresource === 'finalize') return;
  const oldFinalizers = asObject(old.spec)?.finalizers;
  const spec = ensureObject(obj, 'spec');
  if (oldFinalizers === undefined) delete spec.finalizers;
  else spec.finalizers = structuredClone(oldFinalizers);
}

/** Message of the 409 a DELETE gets while the namespace controller is still emptying the namespace. */
export const NAMESPACE_CONTENT_REMOVAL =
  'The system is ensuring all content is removed from this namespace.  Upon completion, this namespace will automatically be purged by the system.';

/**
 * Two-phase namespace deletion (api-machinery §8.1): the first DELETE marks the namespace Terminating;
 * later ones are refused while spec.finalizers remain; once they are gone, DELETE removes it.
 */
export function prepareNamespaceForDelete(current: ApiObject): Mutable | undefined {
  const name = current.metadata.name ?? '';
  if (!current.metadata.deletionTimestamp) {
    const next = structuredClone(current) as Mutable;
    next.metadata.deletionTimestamp = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
    ensureObject(next, 'status').phase = 'Terminating';
    return next;
  }
  const finalizers = asArray(asObject(current.spec)?.finalizers) ?? [];
  if (finalizers.length > 0) throw errors.conflict({ group: '', resource: 'namespaces' }, name, NAMESPACE_CONTENT_REMOVAL);
  return undefined;
}

export function defaultNamespace(obj: Mutable): void {
  const status = ensureObject(obj, 'status');
  if (!status.phase) status.phase = 'Active';
}

/** Namespace spec.finalizers: standard names, or fully qualified ones. */
export function validateNamespaceFinalizers(finalizers: unknown, fldPath: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const f of asArray(finalizers) ?? []) {
    if (typeof f !== 'string') continue; // the kind's type check reports it (spec.finalizers[i])
    const msgs = isQualifiedName(f);
    if (msgs.length > 0) {
      for (const msg of msgs) errs.push(field.invalid(fldPath, f, msg));
    } else if (!f.includes('/') && !standardFinalizers.has(f)) {
      errs.push(field.invalid(fldPath, f, 'name is neither a standard finalizer name nor is it fully qualified'));
    }
  }
  return errs;
}

export const NAMESPACE_PHASES = ['Active', 'Terminating'];

export function validateNamespace(obj: ApiObject): FieldError[] {
  const errs = validateNamespaceFinalizers(asObject(obj.spec)?.finalizers, 'spec.finalizers');
  const phase = asObject(obj.status)?.phase;
  if (phase !== undefined && phase !== '' && !NAMESPACE_PHASES.includes(wireText(phase))) {
    errs.push(field.notSupported('status.phase', phase, NAMESPACE_PHASES));
  }
  return errs;
}

// ---- Node ----

export function defaultNode(obj: Mutable): void {
  const spec = ensureObject(obj, 'spec');
  if (!spec.externalID && obj.metadata.name) spec.externalID = obj.metadata.name;
}

export function validateNode(obj: ApiObject, old: ApiObject | undefined): FieldError[] {
  const errs: FieldError[] = [];
  const spec = asObject(obj.spec) ?? {};
  if (!asString(spec.externalID)) errs.push(field.required('spec.externalID'));
  const podCIDR = asString(spec.podCIDR) ?? '';
  if (podCIDR && !isCIDR(podCIDR)) errs.push(field.invalid('spec.podCIDR', podCIDR, 'must be a valid CIDR'));
  if (spec.unschedulable !== undefined && typeof spec.unschedulable !== 'boolean') {
    errs.push(field.invalid('spec.unschedulable', spec.unschedulable, 'must be a boolean'));
  }
  const status = asObject(obj.status) ?? {};
  errs.push(...validateResourceList(status.capacity, 'status.capacity'));
  errs.push(...validateResourceList(status.allocatable, 'status.allocatable'));
  if (old) {
    const oldCIDR = asString(asObject(old.spec)?.podCIDR) ?? '';
    if (oldCIDR && oldCIDR !== podCIDR) errs.push(field.forbidden('spec.podCIDR', 'node updates may not change podCIDR except from "" to valid'));
  }
  (asArray(status.addresses) ?? []).forEach((raw, i) => {
    const a = asObject(raw) ?? {};
    if (!asString(a.type)) errs.push(field.required(path.child(path.index('status.addresses', i), 'type')));
  });
  return errs;
}
