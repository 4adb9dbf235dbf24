import type { ApiObject } from '../api/object.ts';
import type { ResourceDef } from '../api/catalogue.ts';
import type { UserInfo } from '../authn/types.ts';

export type AdmissionOperation = 'create' | 'update' | 'delete';

export interface AdmissionRequest {
  operation: AdmissionOperation;
  def: ResourceDef;
  subresource: string;
  namespace: string;
  name: string;
  /** The object about to be written (mutable on create/update: mutating plugins may change it). */
  object?: ApiObject;
  old?: ApiObject;
  user: UserInfo;
  /** A dry run: the plugin decides and may mutate `object`, but must not write anything itself. */
  dryRun: boolean;
}

/**
 * A step every write passes after validation and before the store: namespace lifecycle, service
 * account defaulting, RBAC escalation checks. Throw a StatusError to refuse.
 */
export interface AdmissionPlugin {
  readonly name: string;
  admit(req: AdmissionRequest): Promise<void> | void;
}

export async function runAdmission(plugins: readonly AdmissionPlugin[], req: AdmissionRequest): Promise<void> {
  for (const p of plugins) await p.admit(req);
}
