// DeploymentRollback: the body of a deployment's `rollback` subresource, which records the revision
// to roll back to in spec.rollbackTo for the deployment controller. Never stored.
import type { ApiObject, JsonObject } from '../../api/object.ts';
import { isPlainObject } from '../../api/object.ts';
import { validateDeploymentRollback } from '../../api/validation/misc.ts';
import { INT64_MESSAGE } from '../../api/validation/schema.ts';
import { errors, field, type FieldError } from '../../request/errors.ts';
import type { HandlerFactory } from '../handler.ts';
import { defineKind } from '../kind.ts';
import { deploymentRollbackSchema } from '../../api/validation/kind-schemas.ts';

type Mutable = ApiObject & JsonObject;

export const rollbackHandler: HandlerFactory = ({ registry }) => async (req, method) => {
  if (method !== 'POST') throw errors.methodNotAllowed();
  const body = req.body;
  if (!isPlainObject(body)) throw errors.badRequest('the object provided is unrecognized (must be of type DeploymentRollback)');
  const errs: FieldError[] = [];
  if (body.name !== undefined && body.name !== req.name) errs.push(field.invalid('name', body.name, `must match the deployment name ${req.name}`));
  const to = isPlainObject(body.rollbackTo) ? body.rollbackTo : {};
  const revision = to.revision ?? 0;
  if (!Number.isSafeInteger(revision)) errs.push(field.invalid('rollbackTo.revision', revision, INT64_MESSAGE));
  else if ((revision as number) < 0) errs.push(field.invalid('rollbackTo.revision', revision, 'must be greater than or equal to 0'));
  const updated = isPlainObject(body.updatedAnnotations) ? (body.updatedAnnotations as Record<string, string>) : {};
  if (errs.length) throw errors.invalid('extensions', 'DeploymentRollback', req.name, errs);
  await registry.guaranteedUpdate({ ...req, subresource: '' }, undefined, (cur) => {
    const d = structuredClone(cur!) as Mutable;
    d.spec = { ...((d.spec as JsonObject) ?? {}), rollbackTo: { revision } };
    d.metadata.annotations = { ...(d.metadata.annotations ?? {}), ...updated };
    return d;
  }, { noCreate: true });
  return { status: 201, body: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', message: `rollback request for deployment "${req.name}" succeeded`, code: 200 } };
};

/** Only ever the body of a deployment's `rollback` subresource: no catalogue row of its own. */
export const deploymentRollbackKind = defineKind({
  kind: 'DeploymentRollback',
  schema: deploymentRollbackSchema,
  served: [],
  strategy: { nameRule: 'dns1123-subdomain', validate: validateDeploymentRollback },
});
