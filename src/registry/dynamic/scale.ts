// The `scale` subresource of a custom kind (CRD `subresources.scale`): an autoscaling/v1 Scale read
// from and written to the object at the CRD's JSON paths (`.spec.replicas`, `.status.replicas`,
// `.status.selector`).
import type { ResourceDef } from '../../api/catalogue.ts';
import type { ApiObject, JsonObject } from '../../api/object.ts';
import { errors, field } from '../../request/errors.ts';
import type { GenericRegistry, RestRequest, RestResponse } from '../rest.ts';
import { NESTING_TOO_DEEP, parseJson } from '../../api/safe-json.ts';

export interface ScalePaths {
  specReplicasPath: string;
  statusReplicasPath: string;
  labelSelectorPath?: string;
}

const scales = new WeakMap<ResourceDef, ScalePaths>();

export function setScalePaths(def: ResourceDef, paths: ScalePaths): void {
  scales.set(def, paths);
}

/** `.spec.replicas` → ['spec', 'replicas'] (the reference allows only simple dotted paths). */
function parts(path: string): string[] {
  return path.replace(/^\./, '').split('.').filter(Boolean);
}

function read(o: unknown, path: string): unknown {
  let v = o;
  for (const p of parts(path)) v = typeof v === 'object' && v !== null && Object.hasOwn(v, p) ? (v as Record<string, unknown>)[p] : undefined;
  return v;
}

function write(o: JsonObject, path: string, value: number): void {
  const ps = parts(path);
  let cur: Record<string, unknown> = o;
  for (const p of ps.slice(0, -1)) {
    const next = Object.hasOwn(cur, p) ? cur[p] : undefined;
    if (typeof next !== 'object' || next === null || Array.isArray(next)) cur[p] = {};
    cur = cur[p] as Record<string, unknown>;
  }
  cur[ps[ps.length - 1]] = value;
}

function scaleOf(obj: ApiObject, p: ScalePaths): JsonObject {
  const m = obj.metadata;
  const status: JsonObject = { replicas: typeof read(obj, p.statusReplicasPath) === 'number' ? (read(obj, p.statusReplicasPath) as number) : 0 };
  const selector = p.labelSelectorPath ? read(obj, p.labelSelectorPath) : undefined;
  if (typeof selector === 'string') status.selector = selector;
  const meta: JsonObject = { name: m.name ?? '', uid: m.uid ?? '', resourceVersion: m.resourceVersion ?? '', creationTimestamp: m.creationTimestamp ?? null };
  if (m.namespace) meta.namespace = m.namespace;
  const replicas = read(obj, p.specReplicasPath);
  return { kind: 'Scale', apiVersion: 'autoscaling/v1', metadata: meta, spec: { replicas: typeof replicas === 'number' ? replicas : 0 }, status };
}

function replicasOf(body: unknown): { replicas: number; resourceVersion?: number } {
  let b = body;
  if (b instanceof Uint8Array) {
    try {
      // behind the nesting limit: a few MB of nested lists take JSON.parse half a second
      b = parseJson(Buffer.from(b).toString('utf8'));
    } catch (e) {
      throw errors.badRequest((e as Error).message === NESTING_TOO_DEEP ? `the patch body is not valid: ${NESTING_TOO_DEEP}` : 'the patch body is not JSON');
    }
  }
  const o = typeof b === 'object' && b !== null ? (b as { spec?: { replicas?: unknown }; metadata?: { resourceVersion?: unknown } }) : {};
  const r = o.spec?.replicas;
  if (typeof r !== 'number' || !Number.isInteger(r) || r < 0 || r > 2 ** 31 - 1) throw errors.invalid('autoscaling', 'Scale', '', [field.invalid('spec.replicas', r, 'must be a non-negative 32-bit integer')]);
  const rv = o.metadata?.resourceVersion;
  return { replicas: r, resourceVersion: typeof rv === 'string' && /^\d+$/.test(rv) ? Number(rv) : undefined };
}

/** GET, PUT or merge PATCH of a custom object's scale; undefined when the kind declares no scale. */
export async function customScale(registry: GenericRegistry, req: RestRequest, verb: string): Promise<RestResponse | undefined> {
  const p = scales.get(req.def);
  if (!p) return undefined;
  const whole: RestRequest = { ...req, subresource: '' };
  if (verb === 'get') return { status: 200, body: scaleOf(registry.get(whole).body as ApiObject, p) };
  if (verb !== 'update' && verb !== 'patch') throw errors.methodNotAllowed();
  if (verb === 'patch' && !/merge-patch\+json|strategic-merge-patch\+json/.test(req.contentType ?? '')) throw errors.unsupportedPatchType(['application/merge-patch+json', 'application/strategic-merge-patch+json']);
  const { replicas, resourceVersion } = replicasOf(req.body);
  const res = await registry.guaranteedUpdate(whole, verb === 'update' ? resourceVersion : undefined, (current) => {
    if (!current) throw errors.notFound({ group: req.def.group, resource: req.def.plural }, req.name);
    const next = structuredClone(current) as ApiObject & JsonObject;
    write(next, p.specReplicasPath, replicas);
    return next;
  }, { noCreate: true });
  return { status: 200, body: scaleOf(res.body as ApiObject, p) };
}
