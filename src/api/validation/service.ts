// Service and Endpoints (v1).
import { wireText } from '../safe-json.ts';
import { field, type FieldError } from '../../request/errors.ts';
import type { ApiObject } from '../object.ts';
import { isDNS1123Label, isValidIPv4 } from './names.ts';
import { validateLabels, FIELD_IMMUTABLE } from './meta.ts';
import { validateNonSpecialIP, validatePortNumber, validatePortNumOrName, validateProtocol } from './common.ts';
import { asArray, asObject, asString, ensureObject, path, setDefault, type JsonObject } from './json.ts';

type Mutable = ApiObject & JsonObject;

export const SERVICE_TYPES = ['ClusterIP', 'NodePort', 'LoadBalancer'];
export const SESSION_AFFINITIES = ['ClientIP', 'None'];

export function defaultService(obj: Mutable): void {
  const spec = ensureObject(obj, 'spec');
  setDefault(spec, 'sessionAffinity', 'None');
  setDefault(spec, 'type', 'ClusterIP');
  for (const raw of asArray(spec.ports) ?? []) {
    const port = asObject(raw);
    if (!port) continue;
    setDefault(port, 'protocol', 'TCP');
    if ((port.targetPort === undefined || port.targetPort === null || port.targetPort === 0 || port.targetPort === '') && port.port !== undefined) {
      port.targetPort = port.port;
    }
  }
}

export function validateService(obj: ApiObject, old: ApiObject | undefined): FieldError[] {
  const errs: FieldError[] = [];
  const spec = asObject(obj.spec) ?? {};
  const clusterIP = asString(spec.clusterIP) ?? '';
  const ports = asArray(spec.ports) ?? [];
  if (ports.length === 0 && clusterIP !== 'None') errs.push(field.required('spec.ports'));
  const type = spec.type;
  if (type === undefined || type === '') errs.push(field.required('spec.type'));
  else if (!SERVICE_TYPES.includes(wireText(type))) errs.push(field.notSupported('spec.type', type, SERVICE_TYPES));
  const names = new Set<string>();
  ports.forEach((raw, i) => {
    const p = path.index('spec.ports', i);
    const port = asObject(raw) ?? {};
    const name = asString(port.name) ?? '';
    if (ports.length > 1 && !name) errs.push(field.required(path.child(p, 'name')));
    if (name) {
      for (const msg of isDNS1123Label(name)) errs.push(field.invalid(path.child(p, 'name'), name, msg));
      if (names.has(name)) errs.push(field.duplicate(path.child(p, 'name'), name));
      names.add(name);
    }
    errs.push(...validatePortNumber(port.port, path.child(p, 'port')));
    errs.push(...validateProtocol(port.protocol, path.child(p, 'protocol')));
    errs.push(...validatePortNumOrName(port.targetPort, path.child(p, 'targetPort')));
    if (port.nodePort !== undefined && port.nodePort !== null && port.nodePort !== 0) {
      if (type === 'ClusterIP') errs.push(field.forbidden(path.child(p, 'nodePort'), "may not be used when `type` is 'ClusterIP'"));
      else errs.push(...validatePortNumber(port.nodePort, path.child(p, 'nodePort')));
    }
  });
  const affinity = spec.sessionAffinity;
  if (affinity === undefined || affinity === '') errs.push(field.required('spec.sessionAffinity'));
  else if (!SESSION_AFFINITIES.includes(wireText(affinity))) errs.push(field.notSupported('spec.sessionAffinity', affinity, SESSION_AFFINITIES));
  if (clusterIP && clusterIP !== 'None' && !isValidIPv4(clusterIP)) {
    errs.push(field.invalid('spec.clusterIP', clusterIP, "must be empty, 'None', or a valid IP address"));
  }
  errs.push(...validateLabels(spec.selector, 'spec.selector'));
  (asArray(spec.externalIPs) ?? []).forEach((ip, i) => errs.push(...validateNonSpecialIP(ip, path.index('spec.externalIPs', i))));
  if (old) {
    const oldIP = asString(asObject(old.spec)?.clusterIP) ?? '';
    if (oldIP && clusterIP !== oldIP) errs.push(field.invalid('spec.clusterIP', clusterIP, FIELD_IMMUTABLE));
  }
  return errs;
}

export function defaultEndpoints(obj: Mutable): void {
  for (const ss of asArray(obj.subsets) ?? []) {
    for (const raw of asArray(asObject(ss)?.ports) ?? []) {
      const port = asObject(raw);
      if (port) setDefault(port, 'protocol', 'TCP');
    }
  }
}

function validateAddresses(list: unknown, fldPath: string): FieldError[] {
  const errs: FieldError[] = [];
  (asArray(list) ?? []).forEach((raw, i) => {
    const a = asObject(raw) ?? {};
    errs.push(...validateNonSpecialIP(a.ip, path.child(path.index(fldPath, i), 'ip')));
    const hostname = asString(a.hostname);
    if (hostname) for (const msg of isDNS1123Label(hostname)) errs.push(field.invalid(path.child(path.index(fldPath, i), 'hostname'), hostname, msg));
  });
  return errs;
}

export function validateEndpoints(obj: ApiObject): FieldError[] {
  const errs: FieldError[] = [];
  (asArray(obj.subsets) ?? []).forEach((raw, i) => {
    const p = path.index('subsets', i);
    const ss = asObject(raw) ?? {};
    const addresses = asArray(ss.addresses) ?? [];
    const notReady = asArray(ss.notReadyAddresses) ?? [];
    if (addresses.length === 0 && notReady.length === 0) errs.push(field.required(p, 'must specify `addresses` or `notReadyAddresses`'));
    errs.push(...validateAddresses(addresses, path.child(p, 'addresses')));
    errs.push(...validateAddresses(notReady, path.child(p, 'notReadyAddresses')));
    const ports = asArray(ss.ports) ?? [];
    if (ports.length === 0) errs.push(field.required(path.child(p, 'ports')));
    ports.forEach((rp, j) => {
      const pp = path.index(path.child(p, 'ports'), j);
      const port = asObject(rp) ?? {};
      const name = asString(port.name) ?? '';
      if (ports.length > 1 && !name) errs.push(field.required(path.child(pp, 'name')));
      if (name) for (const msg of isDNS1123Label(name)) errs.push(field.invalid(path.child(pp, 'name'), name, msg));
      errs.push(...validatePortNumber(port.port, path.child(pp, 'port')));
      errs.push(...validateProtocol(port.protocol, path.child(pp, 'protocol')));
    });
  });
  return errs;
}
