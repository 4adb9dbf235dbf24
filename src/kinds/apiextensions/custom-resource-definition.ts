// CustomResourceDefinition (apiextensions.k8s.io v1 and v1beta1, stored once): defines a kind at run
// time. The custom-resources controller turns each stored CRD into catalogue rows; the status
// (acceptedNames, Established and NamesAccepted conditions) is filled in on every write so
// `kubectl wait --for=condition=Established` returns at once.
import type { ApiObject, JsonObject } from '../../api/object.ts';
import { isDNS1123Label, isDNS1123Subdomain } from '../../api/validation/names.ts';
import { crdVersions } from '../../registry/dynamic/crd.ts';
import { schemaErrors } from '../../registry/dynamic/schema.ts';
import { printerColumnErrors } from '../../registry/dynamic/printer-columns.ts';
import { field, type FieldError } from '../../request/errors.ts';
import { customResourceDefinitionSchema } from '../../api/validation/kind-schemas.ts';
import { defineKind } from '../kind.ts';

function obj(v: unknown): Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

function validateCrd(o: ApiObject, old: ApiObject | undefined): FieldError[] {
  const errs: FieldError[] = [];
  const spec = obj(o.spec);
  // where the objects are stored follows from these: changing them would orphan every object
  if (old) {
    const was = obj(old.spec);
    if (spec.group !== was.group) errs.push(field.invalid('spec.group', spec.group, 'field is immutable'));
    if (spec.scope !== was.scope) errs.push(field.invalid('spec.scope', spec.scope, 'field is immutable'));
    if (obj(spec.names).plural !== obj(was.names).plural) errs.push(field.invalid('spec.names.plural', obj(spec.names).plural, 'field is immutable'));
  }
  const names = obj(spec.names);
  const group = typeof spec.group === 'string' ? spec.group : '';
  const plural = typeof names.plural === 'string' ? names.plural : '';
  if (!group) errs.push(field.required('spec.group'));
  else if (isDNS1123Subdomain(group).length || !group.includes('.')) errs.push(field.invalid('spec.group', group, 'should be a domain with at least one dot'));
  if (!plural) errs.push(field.required('spec.names.plural'));
  else if (isDNS1123Label(plural).length) errs.push(field.invalid('spec.names.plural', plural, 'a lowercase RFC 1123 label'));
  if (typeof names.kind !== 'string' || !names.kind) errs.push(field.required('spec.names.kind'));
  else if (!/^[A-Za-z][A-Za-z0-9]*$/.test(names.kind)) errs.push(field.invalid('spec.names.kind', names.kind, 'must be a valid kind name'));
  if (plural && group && o.metadata.name !== `${plural}.${group}`) errs.push(field.invalid('metadata.name', o.metadata.name, 'must be spec.names.plural+"."+spec.group'));
  if (spec.scope !== 'Namespaced' && spec.scope !== 'Cluster') errs.push(field.notSupported('spec.scope', spec.scope, ['Cluster', 'Namespaced']));
  for (const key of ['singular', 'listKind'] as const) if (names[key] !== undefined && typeof names[key] !== 'string') errs.push(field.invalid(`spec.names.${key}`, names[key], 'must be a string'));
  for (const key of ['shortNames', 'categories'] as const) {
    const v = names[key];
    if (v !== undefined && (!Array.isArray(v) || v.some((s) => typeof s !== 'string' || isDNS1123Label(s).length))) errs.push(field.invalid(`spec.names.${key}`, v, 'must be a list of lowercase RFC 1123 labels'));
  }
  const versions = crdVersions(spec);
  if (versions.length === 0) errs.push(field.required('spec.versions', 'must have exactly one version marked as storage version'));
  else if (versions.filter((v) => v.storage).length !== 1) errs.push(field.invalid('spec.versions', versions.filter((v) => v.storage).map((v) => v.name), 'must have exactly one version marked as storage version'));
  const seen = new Set<string>();
  const rawVersions: unknown[] = Array.isArray(spec.versions) ? spec.versions : [];
  versions.forEach((v, i) => {
    const p = `spec.versions[${i}]`;
    if (!v.name || isDNS1123Label(v.name).length) errs.push(field.invalid(`${p}.name`, v.name, 'a lowercase RFC 1123 label'));
    if (seen.has(v.name)) errs.push(field.duplicate(`${p}.name`, v.name));
    seen.add(v.name);
    if (v.schema !== undefined) errs.push(...schemaErrors(v.schema, `${p}.schema.openAPIV3Schema`));
    errs.push(...printerColumnErrors(obj(rawVersions[i]).additionalPrinterColumns, `${p}.additionalPrinterColumns`));
  });
  errs.push(...printerColumnErrors(spec.additionalPrinterColumns, 'spec.additionalPrinterColumns'));
  return errs;
}

/** The status this server reports for a CRD it accepted (its names, Established and NamesAccepted); other status fields stay. */
function setStatus(o: ApiObject & JsonObject): void {
  const spec = obj(o.spec);
  const names = obj(spec.names);
  const plural = typeof names.plural === 'string' ? names.plural : '';
  const kind = typeof names.kind === 'string' ? names.kind : '';
  const accepted: JsonObject = { plural, kind, singular: typeof names.singular === 'string' && names.singular ? names.singular : kind.toLowerCase(), listKind: typeof names.listKind === 'string' && names.listKind ? names.listKind : `${kind}List` };
  if (Array.isArray(names.shortNames)) accepted.shortNames = names.shortNames as JsonObject[keyof JsonObject];
  if (Array.isArray(names.categories)) accepted.categories = names.categories as JsonObject[keyof JsonObject];
  const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  const cond = (type: string, reason: string, message: string) => ({ type, status: 'True', lastTransitionTime: now, reason, message });
  o.status = {
    ...obj(o.status),
    acceptedNames: accepted,
    conditions: [cond('NamesAccepted', 'NoConflicts', 'no conflicts found'), cond('Established', 'InitialNamesAccepted', 'the initial names have been accepted')],
    storedVersions: crdVersions(spec).filter((v) => v.storage).map((v) => v.name),
  };
}

export const customResourceDefinitionKind = defineKind({
  kind: 'CustomResourceDefinition',
  schema: customResourceDefinitionSchema,
  served: [
    { groupVersion: 'apiextensions.k8s.io/v1', scope: 'cluster', subresources: ['status'], short: ['crd', 'crds'] },
    { groupVersion: 'apiextensions.k8s.io/v1beta1', scope: 'cluster', subresources: ['status'], short: ['crd', 'crds'] },
  ],
  strategy: {
    nameRule: 'dns1123-subdomain',
    validate: validateCrd,
    prepareForCreate: setStatus,
    prepareForUpdate: (o, _old, subresource) => {
      if (subresource !== 'status') setStatus(o);
    },
  },
  fixture: {
    // not served, so tests walking the catalogue add no rows; `$DOMAIN` is the name after `gadgets.`
    body: { spec: { group: '$DOMAIN', scope: 'Namespaced', names: { plural: 'gadgets', kind: 'Gadget' }, versions: [{ name: 'v1', served: false, storage: true }] } },
    name: (n) => `gadgets.example${n}.com`,
  },
});
