// PersistentVolume (cluster-scoped) and PersistentVolumeClaim (v1).
import { wireText } from '../safe-json.ts';
import { field, type FieldError } from '../../request/errors.ts';
import type { ApiObject } from '../object.ts';
import { validateLabelSelectorObject, validateResourceList } from './common.ts';
import { asArray, asObject, asString, ensureObject, jsonEqual, path, setDefault, type JsonObject } from './json.ts';

type Mutable = ApiObject & JsonObject;

export const ACCESS_MODES = ['ReadWriteOnce', 'ReadOnlyMany', 'ReadWriteMany'];
export const RECLAIM_POLICIES = ['Recycle', 'Delete', 'Retain'];
export const PV_SOURCES = [
  'gcePersistentDisk', 'awsElasticBlockStore', 'hostPath', 'glusterfs', 'nfs', 'rbd', 'quobyte', 'iscsi',
  'cinder', 'cephfs', 'fc', 'flocker', 'flexVolume', 'azureFile', 'vsphereVolume', 'azureDisk',
];

function validateAccessModes(modes: unknown, fldPath: string): FieldError[] {
  const list = asArray(modes) ?? [];
  if (list.length === 0) return [field.required(fldPath)];
  return list.filter((m) => !ACCESS_MODES.includes(wireText(m))).map((m) => field.notSupported(fldPath, m, ACCESS_MODES));
}

export function defaultPersistentVolume(obj: Mutable): void {
  const spec = ensureObject(obj, 'spec');
  setDefault(spec, 'persistentVolumeReclaimPolicy', 'Retain');
  const status = ensureObject(obj, 'status');
  setDefault(status, 'phase', 'Pending');
}

export function validatePersistentVolume(obj: ApiObject): FieldError[] {
  const errs: FieldError[] = [];
  const spec = asObject(obj.spec) ?? {};
  const capacity = asObject(spec.capacity);
  if (!capacity || Object.keys(capacity).length === 0) errs.push(field.required('spec.capacity'));
  else if (capacity.storage === undefined || Object.keys(capacity).length > 1) errs.push(field.notSupported('spec.capacity', capacity, ['storage']));
  else errs.push(...validateResourceList(capacity, 'spec.capacity'));
  errs.push(...validateAccessModes(spec.accessModes, 'spec.accessModes'));
  const policy = spec.persistentVolumeReclaimPolicy;
  if (policy !== undefined && policy !== '' && !RECLAIM_POLICIES.includes(wireText(policy))) {
    errs.push(field.notSupported('spec.persistentVolumeReclaimPolicy', policy, RECLAIM_POLICIES));
  }
  const sources = PV_SOURCES.filter((s) => spec[s] !== undefined && spec[s] !== null);
  if (sources.length === 0) errs.push(field.required('spec', 'must specify a volume type'));
  else if (sources.length > 1) errs.push(field.forbidden(path.child('spec', sources[1]), 'may not specify more than 1 volume type'));
  return errs;
}

export function defaultPersistentVolumeClaim(obj: Mutable): void {
  const status = ensureObject(obj, 'status');
  setDefault(status, 'phase', 'Pending');
}

export function validatePersistentVolumeClaim(obj: ApiObject, old: ApiObject | undefined): FieldError[] {
  const errs: FieldError[] = [];
  const spec = asObject(obj.spec) ?? {};
  errs.push(...validateAccessModes(spec.accessModes, 'spec.accessModes'));
  errs.push(...validateLabelSelectorObject(spec.selector, 'spec.selector'));
  const requests = asObject(asObject(spec.resources)?.requests);
  if (!requests || requests.storage === undefined) errs.push(field.required('spec.resources[storage]'));
  else errs.push(...validateResourceList(requests, 'spec.resources.requests'));
  if (old) {
    // Binding may fill in volumeName once; everything else in the spec is fixed.
    const oldSpec = { ...(asObject(old.spec) ?? {}) };
    if (!asString(oldSpec.volumeName)) oldSpec.volumeName = spec.volumeName;
    if (!jsonEqual(spec, oldSpec)) errs.push(field.forbidden('spec', 'field is immutable after creation'));
  }
  return errs;
}
