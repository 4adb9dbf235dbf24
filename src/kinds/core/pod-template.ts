import { podTemplateRules } from '../../api/merge-rules.ts';
import { defaultPodTemplateObject, validatePodTemplate } from '../../api/validation/misc.ts';
import { exampleTemplate } from '../common.ts';
import { defineKind } from '../kind.ts';
import { podTemplateSchema } from '../../api/validation/kind-schemas.ts';
import { podTemplateColumns } from './columns.ts';

export const podTemplateKind = defineKind({
  kind: 'PodTemplate',
  columns: podTemplateColumns,
  schema: podTemplateSchema,
  served: [{ groupVersion: 'v1' }],
  strategy: { nameRule: 'dns1123-subdomain', defaults: defaultPodTemplateObject, validate: validatePodTemplate, mergeRules: podTemplateRules('template') },
  fixture: { body: { template: exampleTemplate } },
});
