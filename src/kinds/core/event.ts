import type { KindStrategy } from '../../api/strategy.ts';
import { validateEvent } from '../../api/validation/misc.ts';
import { read } from '../common.ts';
import { defineKind } from '../kind.ts';
import { eventSchema } from '../../api/validation/kind-schemas.ts';
import { eventColumns } from './columns.ts';

const fieldLabels: NonNullable<KindStrategy['fieldLabels']> = {
  ...Object.fromEntries(
    ['kind', 'namespace', 'name', 'uid', 'apiVersion', 'resourceVersion', 'fieldPath'].map((k) => [`involvedObject.${k}`, read('involvedObject', k)]),
  ),
  reason: read('reason'),
  source: read('source', 'component'),
  type: read('type'),
};

export const eventKind = defineKind({
  kind: 'Event',
  columns: eventColumns,
  schema: eventSchema,
  served: [{ groupVersion: 'v1', short: ['ev'] }],
  strategy: { nameRule: 'path-segment', validate: validateEvent, allowCreateOnUpdate: true, fieldLabels, fieldLabelMessage: 'short' },
  fixture: { body: { involvedObject: { kind: 'Pod', name: 'p', namespace: '$NS' }, reason: 'Tested', message: 'a test event', type: 'Normal' } },
});
