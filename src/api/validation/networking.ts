// Ingress and NetworkPolicy (extensions/v1beta1).
import { field, type FieldError } from '../../request/errors.ts';
import type { ApiObject } from '../object.ts';
import { isDNS1035Label, isDNS1123Subdomain, isValidIPv4 } from './names.ts';
import { validateLabelSelectorObject, validatePortNumOrName, validateProtocol } from './common.ts';
import { asArray, asObject, asString, path, setDefault, type JsonObject } from './json.ts';

type Mutable = ApiObject & JsonObject;

function validateBackend(raw: unknown, fldPath: string): FieldError[] {
  const errs: FieldError[] = [];
  const b = asObject(raw) ?? {};
  const serviceName = asString(b.serviceName) ?? '';
  if (!serviceName) errs.push(field.required(path.child(fldPath, 'serviceName')));
  else for (const msg of isDNS1035Label(serviceName)) errs.push(field.invalid(path.child(fldPath, 'serviceName'), serviceName, msg));
  errs.push(...validatePortNumOrName(b.servicePort, path.child(fldPath, 'servicePort')));
  return errs;
}

export function validateIngress(obj: ApiObject): FieldError[] {
  const errs: FieldError[] = [];
  const spec = asObject(obj.spec) ?? {};
  const rules = asArray(spec.rules) ?? [];
  if (spec.backend !== undefined && spec.backend !== null) errs.push(...validateBackend(spec.backend, 'spec.backend'));
  else if (rules.length === 0) errs.push(field.invalid('spec.rules', spec.rules ?? null, 'either `backend` or `rules` must be specified'));
  rules.forEach((raw, i) => {
    const p = path.index('spec.rules', i);
    const rule = asObject(raw) ?? {};
    const host = asString(rule.host) ?? '';
    if (host) {
      if (isValidIPv4(host)) errs.push(field.invalid(path.child(p, 'host'), host, 'must be a DNS name, not an IP address'));
      for (const msg of isDNS1123Subdomain(host)) errs.push(field.invalid(path.child(p, 'host'), host, msg));
    }
    const http = asObject(rule.http);
    if (!http) return;
    const paths = asArray(http.paths) ?? [];
    const pathsPath = path.child(path.child(p, 'http'), 'paths');
    if (paths.length === 0) errs.push(field.required(pathsPath));
    paths.forEach((rp, j) => {
      const pp = path.index(pathsPath, j);
      const hp = asObject(rp) ?? {};
      const urlPath = asString(hp.path) ?? '';
      if (urlPath && !urlPath.startsWith('/')) errs.push(field.invalid(path.child(pp, 'path'), urlPath, 'must be an absolute path'));
      errs.push(...validateBackend(hp.backend, path.child(pp, 'backend')));
    });
  });
  (asArray(spec.tls) ?? []).forEach((raw, i) => {
    (asArray(asObject(raw)?.hosts) ?? []).forEach((h, j) => {
      const host = typeof h === 'string' ? h : '';
      for (const msg of isDNS1123Subdomain(host)) errs.push(field.invalid(path.index(path.child(path.index('spec.tls', i), 'hosts'), j), h, msg));
    });
  });
  return errs;
}

export function defaultNetworkPolicy(obj: Mutable): void {
  for (const rule of asArray(asObject(obj.spec)?.ingress) ?? []) {
    for (const raw of asArray(asObject(rule)?.ports) ?? []) {
      const port = asObject(raw);
      if (port) setDefault(port, 'protocol', 'TCP');
    }
  }
}

export function validateNetworkPolicy(obj: ApiObject): FieldError[] {
  const spec = asObject(obj.spec) ?? {};
  const errs = validateLabelSelectorObject(spec.podSelector, 'spec.podSelector');
  (asArray(spec.ingress) ?? []).forEach((raw, i) => {
    const p = path.index('spec.ingress', i);
    const rule = asObject(raw) ?? {};
    (asArray(rule.ports) ?? []).forEach((rp, j) => {
      const pp = path.index(path.child(p, 'ports'), j);
      const port = asObject(rp) ?? {};
      errs.push(...validateProtocol(port.protocol, path.child(pp, 'protocol')));
      if (port.port !== undefined && port.port !== null) errs.push(...validatePortNumOrName(port.port, path.child(pp, 'port')));
    });
    (asArray(rule.from) ?? []).forEach((rf, j) => {
      const fp = path.index(path.child(p, 'from'), j);
      const peer = asObject(rf) ?? {};
      const kinds = ['podSelector', 'namespaceSelector'].filter((k) => peer[k] !== undefined && peer[k] !== null);
      if (kinds.length === 0) errs.push(field.required(fp, 'must specify a from type'));
      else if (kinds.length > 1) errs.push(field.forbidden(fp, 'may not specify more than 1 from type'));
      for (const k of kinds) errs.push(...validateLabelSelectorObject(peer[k], path.child(fp, k)));
    });
  });
  return errs;
}
