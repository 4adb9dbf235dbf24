// ServiceAccount admission for pods (concepts: service account tokens): a new pod runs as an
// account (`default` unless it names one), the account must exist, and the account's token secret is
// mounted read-only at a well-known path in every container.
import type { ApiObject, JsonObject, JsonValue } from '../api/object.ts';
import { isPlainObject } from '../api/object.ts';
import { SA_NAME_ANNOTATION, SECRET_TYPE_SERVICE_ACCOUNT_TOKEN } from '../api/validation/config.ts';
import { errors } from '../request/errors.ts';
import { SA_UID_ANNOTATION } from '../api/validation/config.ts';
import type { Store } from '../store/store.ts';
import type { AdmissionPlugin } from '../registry/admission.ts';

export const SERVICE_ACCOUNT_MOUNT_PATH = '/var/run/secrets/platform.io/serviceaccount';
export const DEFAULT_SERVICE_ACCOUNT_NAME = 'default';

export interface ServiceAccountAdmissionOptions {
  store: Store;
  /**
   * Wait until the controllers have handled what they already know about this account (a pod created
   * right after its namespace or account finds the account and token the controllers are making).
   */
  settle?: (namespace: string, account: string) => Promise<void>;
}

export function serviceAccountAdmission(opts: ServiceAccountAdmissionOptions): AdmissionPlugin {
  return {
    name: 'ServiceAccount',
    async admit(req) {
      if (req.operation !== 'create' || req.def.kind !== 'Pod' || req.subresource !== '' || !req.object) return;
      const pod = req.object as ApiObject & JsonObject;
      const spec = objectField(pod, 'spec');
      if (typeof spec.serviceAccountName !== 'string' || spec.serviceAccountName === '') spec.serviceAccountName = DEFAULT_SERVICE_ACCOUNT_NAME;
      const account = spec.serviceAccountName;
      const ns = req.namespace;
      await opts.settle?.(ns, account);

      const sa = opts.store.get({ group: '', resource: 'serviceaccounts', namespace: ns, name: account });
      if (!sa) {
        throw errors.forbidden({ group: '', resource: 'pods' }, req.name, `error looking up service account ${ns}/${account}: serviceaccount "${account}" not found`);
      }
      const token = referencedToken(opts.store, sa);
      if (!token) {
        throw errors.serverTimeout(
          { group: '', resource: 'serviceaccounts' },
          'create pod',
          1,
          `No API token found for service account "${account}", retry after the token is automatically created and added to the service account`,
        );
      }
      mountToken(spec, token);
    },
  };
}

/** The name of a token secret the account references that is really its own (name and uid match). */
function referencedToken(store: Store, sa: ApiObject): string | undefined {
  const refs = Array.isArray(sa.secrets) ? sa.secrets : [];
  for (const ref of refs) {
    if (!isPlainObject(ref) || typeof ref.name !== 'string') continue;
    const secret = store.get({ group: '', resource: 'secrets', namespace: sa.metadata.namespace!, name: ref.name });
    if (!secret || secret.type !== SECRET_TYPE_SERVICE_ACCOUNT_TOKEN || secret.metadata.deletionTimestamp) continue;
    const a = secret.metadata.annotations ?? {};
    if (a[SA_NAME_ANNOTATION] !== sa.metadata.name) continue;
    if (a[SA_UID_ANNOTATION] && a[SA_UID_ANNOTATION] !== sa.metadata.uid) continue;
    return ref.name;
  }
  return undefined;
}

/** Add the token volume (unless one already holds that secret) and its mount to containers without one. */
function mountToken(spec: JsonObject, secretName: string): void {
  const volumes = arrayField(spec, 'volumes');
  const existing = volumes.find((v) => isPlainObject(v) && isPlainObject(v.secret) && v.secret.secretName === secretName);
  let volumeName = isPlainObject(existing) && typeof existing.name === 'string' ? existing.name : secretName;
  if (!existing) {
    const taken = new Set(volumes.map((v) => (isPlainObject(v) ? v.name : undefined)));
    for (let i = 1; taken.has(volumeName); i++) volumeName = `${secretName}-${i}`;
  }
  let mounted = false;
  for (const key of ['initContainers', 'containers']) {
    if (!Array.isArray(spec[key])) continue;
    for (const c of spec[key] as JsonValue[]) {
      if (!isPlainObject(c)) continue;
      const mounts = arrayField(c, 'volumeMounts');
      if (mounts.some((m) => isPlainObject(m) && m.mountPath === SERVICE_ACCOUNT_MOUNT_PATH)) continue;
      mounts.push({ name: volumeName, readOnly: true, mountPath: SERVICE_ACCOUNT_MOUNT_PATH });
      mounted = true;
    }
  }
  if (mounted && !existing) volumes.push({ name: volumeName, secret: { secretName, defaultMode: 420 } });
  if (volumes.length === 0) delete spec.volumes;
}

function objectField(parent: JsonObject, key: string): JsonObject {
  const v = parent[key];
  if (isPlainObject(v)) return v;
  const fresh: JsonObject = {};
  parent[key] = fresh;
  return fresh;
}

function arrayField(parent: JsonObject, key: string): JsonValue[] {
  const v = parent[key];
  if (Array.isArray(v)) return v;
  const fresh: JsonValue[] = [];
  parent[key] = fresh;
  return fresh;
}
