// ComponentStatus: read-only and not stored; the health of the parts this server is made of.
import type { JsonObject } from '../../api/object.ts';
import { conditionsRule } from '../../api/merge-rules.ts';
import { errors } from '../../request/errors.ts';
import type { HandlerFactory } from '../handler.ts';
import { defineKind } from '../kind.ts';
import { componentStatusColumns } from './columns.ts';
import { componentStatusSchema } from '../../api/validation/kind-schemas.ts';

const componentStatusHandler: HandlerFactory = ({ store }) => {
  const components = (): JsonObject[] => [
    { metadata: { name: 'controller-manager' }, conditions: [{ type: 'Healthy', status: 'True', message: 'ok', error: '' }] },
    { metadata: { name: `storage-${store.backendName}` }, conditions: [{ type: 'Healthy', status: 'True', message: `{"health": "true", "revision": "${store.revision}"}`, error: '' }] },
  ];
  return (req, method) => {
    if (method !== 'GET') throw errors.methodNotAllowed();
    const all = components();
    if (req.name) {
      const c = all.find((x) => (x.metadata as JsonObject).name === req.name);
      if (!c) throw errors.notFound({ group: '', resource: 'componentstatuses' }, req.name);
      return { status: 200, body: { kind: 'ComponentStatus', apiVersion: 'v1', ...c } };
    }
    return { status: 200, body: { kind: 'ComponentStatusList', apiVersion: 'v1', metadata: { selfLink: '/api/v1/componentstatuses' }, items: all } };
  };
};

export const componentStatusKind = defineKind({
  kind: 'ComponentStatus',
  columns: componentStatusColumns,
  schema: componentStatusSchema,
  served: [{ groupVersion: 'v1', scope: 'cluster', verbs: ['get', 'list'], short: ['cs'], virtual: true, handler: componentStatusHandler }],
  strategy: { nameRule: 'dns1123-subdomain', mergeRules: [conditionsRule('')] },
});
