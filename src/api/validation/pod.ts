// Pod specs: defaults and validation of the v1 PodSpec (Pods, pod templates of every workload kind).
import { field, type FieldError } from '../../request/errors.ts';
import { getOwn, setOwn, wireText } from '../safe-json.ts';
import { isCIdentifier, isDNS1123Label, isDNS1123Subdomain, isValidPortName } from './names.ts';
import { validateAnnotations, validateLabels } from './meta.ts';
import { validateNonnegative, validatePortNumber, validateProtocol, validateResourceList } from './common.ts';
import { asArray, asObject, asString, ensureObject, jsonEqual, path, setDefault, type JsonObject } from './json.ts';

export const RESTART_POLICIES = ['Always', 'OnFailure', 'Never'];
export const DNS_POLICIES = ['ClusterFirst', 'Default'];
export const PULL_POLICIES = ['Always', 'IfNotPresent', 'Never'];

/** Volume sources of the v1 API; a volume with none of them defaults to emptyDir. */
export const VOLUME_SOURCES = [
  'hostPath', 'emptyDir', 'gcePersistentDisk', 'awsElasticBlockStore', 'gitRepo', 'secret', 'nfs', 'iscsi',
  'glusterfs', 'persistentVolumeClaim', 'rbd', 'flexVolume', 'cinder', 'cephfs', 'flocker', 'downwardAPI',
  'fc', 'azureFile', 'configMap', 'vsphereVolume', 'quobyte', 'azureDisk',
];

/** `Always` for `:latest` or an untagged image, else `IfNotPresent` (digests pin an image). */
export function defaultPullPolicy(image: string): 'Always' | 'IfNotPresent' {
  if (image.includes('@')) return 'IfNotPresent';
  const lastSlash = image.lastIndexOf('/');
  const colon = image.lastIndexOf(':');
  const tag = colon > lastSlash ? image.slice(colon + 1) : '';
  return tag === '' || tag === 'latest' ? 'Always' : 'IfNotPresent';
}

function defaultContainers(list: unknown): void {
  for (const raw of asArray(list) ?? []) {
    const c = asObject(raw);
    if (!c) continue;
    setDefault(c, 'imagePullPolicy', defaultPullPolicy(asString(c.image) ?? ''));
    setDefault(c, 'terminationMessagePath', '/dev/termination-log');
    for (const p of asArray(c.ports) ?? []) {
      const port = asObject(p);
      if (port) setDefault(port, 'protocol', 'TCP');
    }
    for (const e of asArray(c.env) ?? []) {
      const fieldRef = asObject(asObject(asObject(e)?.valueFrom)?.fieldRef);
      if (fieldRef) setDefault(fieldRef, 'apiVersion', 'v1');
    }
    // Limits without requests imply equal requests.
    const resources = asObject(c.resources);
    const limits = asObject(resources?.limits);
    if (resources && limits && Object.keys(limits).length > 0) {
      const requests = ensureObject(resources, 'requests');
      for (const [k, v] of Object.entries(limits)) if (getOwn(requests, k) === undefined) setOwn(requests, k, v);
    }
  }
}

/** v1 PodSpec defaults (SetDefaults_PodSpec, _Container, _Volume). */
export function defaultPodSpec(spec: JsonObject): void {
  setDefault(spec, 'dnsPolicy', 'ClusterFirst');
  setDefault(spec, 'restartPolicy', 'Always');
  if (spec.terminationGracePeriodSeconds === undefined || spec.terminationGracePeriodSeconds === null) spec.terminationGracePeriodSeconds = 30;
  if (!asObject(spec.securityContext)) spec.securityContext = {};
  defaultContainers(spec.containers);
  defaultContainers(spec.initContainers);
  for (const raw of asArray(spec.volumes) ?? []) {
    const v = asObject(raw);
    if (!v) continue;
    if (!VOLUME_SOURCES.some((s) => v[s] !== undefined && v[s] !== null)) v.emptyDir = {};
    for (const s of ['secret', 'configMap', 'downwardAPI']) {
      const src = asObject(v[s]);
      if (src && src.defaultMode === undefined) src.defaultMode = 420;
    }
  }
}

/** Defaults of a PodTemplateSpec found at `parent[key]`. */
export function defaultPodTemplate(template: unknown): void {
  const t = asObject(template);
  if (!t) return;
  const spec = asObject(t.spec);
  if (spec) defaultPodSpec(spec);
}

function validateVolumes(volumes: unknown, fldPath: string): { errs: FieldError[]; names: Set<string> } {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  (asArray(volumes) ?? []).forEach((raw, i) => {
    const p = path.index(fldPath, i);
    const v = asObject(raw) ?? {};
    const name = asString(v.name) ?? '';
    if (!name) errs.push(field.required(path.child(p, 'name')));
    else {
      for (const msg of isDNS1123Label(name)) errs.push(field.invalid(path.child(p, 'name'), name, msg));
      if (names.has(name)) errs.push(field.duplicate(path.child(p, 'name'), name));
      names.add(name);
    }
    const sources = VOLUME_SOURCES.filter((s) => v[s] !== undefined && v[s] !== null);
    if (sources.length === 0) errs.push(field.required(p, 'must specify a volume type'));
    else if (sources.length > 1) errs.push(field.forbidden(path.child(p, sources[1]), 'may not specify more than 1 volume type'));
  });
  return { errs, names };
}

function validateContainers(list: unknown, fldPath: string, volumes: Set<string>, required: boolean, seen: Set<string>): FieldError[] {
  const errs: FieldError[] = [];
  const containers = asArray(list) ?? [];
  if (containers.length === 0) {
    if (required) errs.push(field.required(fldPath));
    return errs;
  }
  containers.forEach((raw, i) => {
    const p = path.index(fldPath, i);
    const c = asObject(raw);
    if (!c) {
      errs.push(field.invalid(p, raw, 'must be an object'));
      return;
    }
    const name = asString(c.name) ?? '';
    if (!name) errs.push(field.required(path.child(p, 'name')));
    else {
      for (const msg of isDNS1123Label(name)) errs.push(field.invalid(path.child(p, 'name'), name, msg));
      if (seen.has(name)) errs.push(field.duplicate(path.child(p, 'name'), name));
      seen.add(name);
    }
    if (!asString(c.image)) errs.push(field.required(path.child(p, 'image')));
    const pullPolicy = c.imagePullPolicy;
    if (pullPolicy === undefined || pullPolicy === '') errs.push(field.required(path.child(p, 'imagePullPolicy')));
    else if (!PULL_POLICIES.includes(wireText(pullPolicy))) errs.push(field.notSupported(path.child(p, 'imagePullPolicy'), pullPolicy, PULL_POLICIES));
    errs.push(...validateContainerPorts(c.ports, path.child(p, 'ports')));
    errs.push(...validateEnv(c.env, path.child(p, 'env')));
    errs.push(...validateVolumeMounts(c.volumeMounts, path.child(p, 'volumeMounts'), volumes));
    const resources = asObject(c.resources);
    if (resources) {
      errs.push(...validateResourceList(resources.limits, path.child(path.child(p, 'resources'), 'limits')));
      errs.push(...validateResourceList(resources.requests, path.child(path.child(p, 'resources'), 'requests')));
    }
  });
  return errs;
}

function validateContainerPorts(ports: unknown, fldPath: string): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  (asArray(ports) ?? []).forEach((raw, i) => {
    const p = path.index(fldPath, i);
    const port = asObject(raw) ?? {};
    const name = asString(port.name) ?? '';
    if (name) {
      for (const msg of isValidPortName(name)) errs.push(field.invalid(path.child(p, 'name'), name, msg));
      if (names.has(name)) errs.push(field.duplicate(path.child(p, 'name'), name));
      names.add(name);
    }
    errs.push(...validatePortNumber(port.containerPort, path.child(p, 'containerPort')));
    errs.push(...validatePortNumber(port.hostPort, path.child(p, 'hostPort'), false));
    errs.push(...validateProtocol(port.protocol, path.child(p, 'protocol')));
  });
  return errs;
}

function validateEnv(env: unknown, fldPath: string): FieldError[] {
  const errs: FieldError[] = [];
  (asArray(env) ?? []).forEach((raw, i) => {
    const p = path.index(fldPath, i);
    const e = asObject(raw) ?? {};
    const name = asString(e.name) ?? '';
    if (!name) errs.push(field.required(path.child(p, 'name')));
    else for (const msg of isCIdentifier(name)) errs.push(field.invalid(path.child(p, 'name'), name, msg));
    if (e.value !== undefined && e.valueFrom !== undefined && e.value !== '') {
      errs.push(field.invalid(path.child(p, 'valueFrom'), '', 'may not be specified when `value` is not empty'));
    }
  });
  return errs;
}

function validateVolumeMounts(mounts: unknown, fldPath: string, volumes: Set<string>): FieldError[] {
  const errs: FieldError[] = [];
  (asArray(mounts) ?? []).forEach((raw, i) => {
    const p = path.index(fldPath, i);
    const m = asObject(raw) ?? {};
    const name = asString(m.name) ?? '';
    if (!name) errs.push(field.required(path.child(p, 'name')));
    else if (!volumes.has(name)) errs.push(field.notFound(path.child(p, 'name'), name));
    if (!asString(m.mountPath)) errs.push(field.required(path.child(p, 'mountPath')));
  });
  return errs;
}

/** ValidatePodSpec: `fldPath` is where the spec sits (`spec`, `spec.template.spec`). */
export function validatePodSpec(specValue: unknown, fldPath: string): FieldError[] {
  const spec = asObject(specValue) ?? {};
  const { errs, names: volumes } = validateVolumes(spec.volumes, path.child(fldPath, 'volumes'));
  const seen = new Set<string>();
  errs.push(...validateContainers(spec.containers, path.child(fldPath, 'containers'), volumes, true, seen));
  errs.push(...validateContainers(spec.initContainers, path.child(fldPath, 'initContainers'), volumes, false, seen));
  const restart = spec.restartPolicy;
  if (restart === undefined || restart === '') errs.push(field.required(path.child(fldPath, 'restartPolicy')));
  else if (!RESTART_POLICIES.includes(wireText(restart))) errs.push(field.notSupported(path.child(fldPath, 'restartPolicy'), restart, RESTART_POLICIES));
  const dns = spec.dnsPolicy;
  if (dns === undefined || dns === '') errs.push(field.required(path.child(fldPath, 'dnsPolicy')));
  else if (!DNS_POLICIES.includes(wireText(dns))) errs.push(field.notSupported(path.child(fldPath, 'dnsPolicy'), dns, DNS_POLICIES));
  errs.push(...validateLabels(spec.nodeSelector, path.child(fldPath, 'nodeSelector')));
  for (const key of ['serviceAccountName', 'nodeName'] as const) {
    const v = asString(spec[key]);
    if (v) for (const msg of isDNS1123Subdomain(v)) errs.push(field.invalid(path.child(fldPath, key), v, msg));
  }
  const hostname = asString(spec.hostname);
  if (hostname) for (const msg of isDNS1123Label(hostname)) errs.push(field.invalid(path.child(fldPath, 'hostname'), hostname, msg));
  const subdomain = asString(spec.subdomain);
  if (subdomain) for (const msg of isDNS1123Label(subdomain)) errs.push(field.invalid(path.child(fldPath, 'subdomain'), subdomain, msg));
  const deadline = spec.activeDeadlineSeconds;
  if (deadline !== undefined && deadline !== null && (typeof deadline !== 'number' || deadline < 1)) {
    errs.push(field.invalid(path.child(fldPath, 'activeDeadlineSeconds'), deadline, 'must be greater than or equal to 1'));
  }
  errs.push(...validateNonnegative(spec.terminationGracePeriodSeconds, path.child(fldPath, 'terminationGracePeriodSeconds')));
  (asArray(spec.imagePullSecrets) ?? []).forEach((raw, i) => {
    if (!asString(asObject(raw)?.name)) errs.push(field.required(path.child(path.index(path.child(fldPath, 'imagePullSecrets'), i), 'name')));
  });
  return errs;
}

/** ValidatePodTemplateSpec: template labels/annotations and its pod spec. */
export function validatePodTemplateSpec(template: unknown, fldPath: string): FieldError[] {
  const t = asObject(template);
  if (!t) return [field.required(fldPath)];
  const meta = asObject(t.metadata) ?? {};
  return [
    ...validateLabels(meta.labels, path.child(path.child(fldPath, 'metadata'), 'labels')),
    ...validateAnnotations(meta.annotations, path.child(path.child(fldPath, 'metadata'), 'annotations')),
    ...validatePodSpec(t.spec, path.child(fldPath, 'spec')),
  ];
}

// ---- Pod objects ----

export const POD_UPDATE_FORBIDDEN = 'pod updates may not change fields other than `containers[*].image` or `spec.activeDeadlineSeconds`';

/** Pod spec is immutable except images and a shrinking activeDeadlineSeconds. */
export function validatePodSpecUpdate(newSpec: unknown, oldSpec: unknown): FieldError[] {
  const errs: FieldError[] = [];
  const n = asObject(newSpec) ?? {};
  const o = asObject(oldSpec) ?? {};
  const newDeadline = n.activeDeadlineSeconds;
  const oldDeadline = o.activeDeadlineSeconds;
  if (typeof newDeadline === 'number') {
    if (newDeadline < 0) return [field.invalid('spec.activeDeadlineSeconds', newDeadline, 'must be greater than or equal to 0')];
    if (typeof oldDeadline === 'number' && oldDeadline < newDeadline) {
      return [field.invalid('spec.activeDeadlineSeconds', newDeadline, 'must be less than or equal to previous value')];
    }
  } else if (typeof oldDeadline === 'number') {
    return [field.invalid('spec.activeDeadlineSeconds', null, 'must not update from a positive integer to nil value')];
  }
  // Compare with the updatable fields copied over from the old spec.
  const munged: JsonObject = { ...n, activeDeadlineSeconds: o.activeDeadlineSeconds };
  for (const key of ['containers', 'initContainers']) {
    const newList = asArray(n[key]);
    const oldList = asArray(o[key]);
    if (!newList || !oldList || newList.length !== oldList.length) continue;
    munged[key] = newList.map((c, i) => {
      const nc = asObject(c);
      const oc = asObject(oldList[i]);
      return nc && oc ? { ...nc, image: oc.image } : c;
    });
  }
  if (!jsonEqual(munged, o)) errs.push(field.forbidden('spec', POD_UPDATE_FORBIDDEN));
  return errs;
}

