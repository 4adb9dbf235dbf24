// networking.k8s.io/v1 ↔ extensions/v1beta1 (the storage version) for Ingress and NetworkPolicy.
// Ingress: a v1 backend is `service: {name, port: {number} | {name}}` where v1beta1 has
// `serviceName`/`servicePort`, and `spec.defaultBackend` is v1beta1's `spec.backend`; `pathType` and
// `ingressClassName` are stored as given. NetworkPolicy has one shape; v1 defaults `policyTypes`.
import type { ApiObject, JsonObject, JsonValue } from '../../api/object.ts';
import { isPlainObject } from '../../api/object.ts';
import type { VersionConverter } from '../../api/catalogue.ts';
import { asArray, asObject, path } from '../../api/validation/json.ts';
import { field, type FieldError } from '../../request/errors.ts';

type Mutable = ApiObject & JsonObject;

/** v1 `{service: {name, port}}` → v1beta1 `{serviceName, servicePort}`; other keys (resource) kept. */
function backendToStorage(raw: JsonValue | undefined): JsonValue | undefined {
  if (!isPlainObject(raw)) return raw;
  const { service, ...rest } = raw;
  if (!isPlainObject(service)) return rest;
  const out: JsonObject = { ...rest };
  if (service.name !== undefined) out.serviceName = service.name;
  const port = asObject(service.port);
  if (port?.number !== undefined && port.number !== 0) out.servicePort = port.number;
  else if (port?.name !== undefined && port.name !== '') out.servicePort = port.name;
  return out;
}

function backendFromStorage(raw: JsonValue | undefined): JsonValue | undefined {
  if (!isPlainObject(raw)) return raw;
  const { serviceName, servicePort, ...rest } = raw;
  if (serviceName === undefined && servicePort === undefined) return rest;
  const service: JsonObject = {};
  if (serviceName !== undefined) service.name = serviceName;
  if (typeof servicePort === 'number') service.port = { number: servicePort };
  else if (typeof servicePort === 'string') service.port = { name: servicePort };
  return { ...rest, service };
}

/** The spec with each backend mapped by `map`; `from`/`to` rename the default backend's key. */
function mapIngressSpec(spec: JsonObject, map: (b: JsonValue | undefined) => JsonValue | undefined, from: string, to: string, fillPathType: boolean): JsonObject {
  const { [from]: defaultBackend, rules, ...rest } = spec;
  const out: JsonObject = { ...rest };
  if (defaultBackend !== undefined) out[to] = map(defaultBackend) ?? null;
  if (rules !== undefined) {
    out.rules = (asArray(rules) ?? []).map((r) => {
      const http = asObject(asObject(r)?.http);
      if (!http) return r;
      const paths = (asArray(http.paths) ?? []).map((p) => {
        if (!isPlainObject(p)) return p;
        const np: JsonObject = { ...p, backend: map(p.backend) ?? null };
        if (p.backend === undefined) delete np.backend;
        // v1 requires a pathType; an object written without one (v1beta1) reads as the v1beta1 default
        if (fillPathType && (np.pathType === undefined || np.pathType === null || np.pathType === '')) np.pathType = 'ImplementationSpecific';
        return np;
      });
      return { ...(r as JsonObject), http: { ...http, paths } };
    });
  }
  return out;
}

const PATH_TYPES = ['Exact', 'ImplementationSpecific', 'Prefix'];

/** v1 requires each path's pathType (v1beta1 had none, or defaulted it). */
function validatePathTypes(obj: ApiObject): FieldError[] {
  const errs: FieldError[] = [];
  (asArray(asObject(obj.spec)?.rules) ?? []).forEach((r, i) => {
    (asArray(asObject(asObject(r)?.http)?.paths) ?? []).forEach((p, j) => {
      const at = path.child(path.index(path.child(path.child(path.index('spec.rules', i), 'http'), 'paths'), j), 'pathType');
      const t = asObject(p)?.pathType;
      if (t === undefined || t === null || t === '') errs.push(field.required(at, 'pathType must be specified'));
      else if (typeof t !== 'string' || !PATH_TYPES.includes(t)) errs.push(field.notSupported(at, t, PATH_TYPES));
    });
  });
  return errs;
}

export const ingressNetworkingV1: VersionConverter = {
  toStorage(obj: Mutable) {
    if (isPlainObject(obj.spec)) obj.spec = mapIngressSpec(obj.spec, backendToStorage, 'defaultBackend', 'backend', false);
    return obj;
  },
  fromStorage(stored) {
    if (!isPlainObject(stored.spec)) return stored;
    return { ...stored, spec: mapIngressSpec(stored.spec as JsonObject, backendFromStorage, 'backend', 'defaultBackend', true) } as ApiObject;
  },
  validate: validatePathTypes,
};

export const networkPolicyNetworkingV1: VersionConverter = {
  toStorage(obj: Mutable) {
    const spec = asObject(obj.spec);
    if (spec && (spec.policyTypes === undefined || spec.policyTypes === null)) {
      // the reference's v1 default: Ingress always, Egress when egress rules are given
      spec.policyTypes = (asArray(spec.egress) ?? []).length > 0 ? ['Ingress', 'Egress'] : ['Ingress'];
    }
    return obj;
  },
  fromStorage: (stored) => stored,
};
