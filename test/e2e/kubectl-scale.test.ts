// `kubectl scale --current-replicas` (GET then PUT of the scale subresource, through client-go's
// scale client) on every resource the catalogue serves with a scale subresource, in every version
// it is served in: the client converts the Scale by the group-version discovery names for it
// (autoscaling/v1 for replication controllers; without one it assumes core v1 and gives up).
import test from 'ava';
import { resources } from '../../src/kinds/catalogue.ts';
import { kubectlFor } from '../helpers/kubectl.ts';
import { startServer, type TestServer } from '../helpers/server.ts';

let srv: TestServer;
test.before(async () => {
  srv = await startServer();
});
test.after.always(() => srv?.close());

const scalable = resources.filter((d) => d.subresources.some((s) => s.name === 'scale'));

test('the catalogue serves scale on replication controllers, deployments and replica sets', (t) => {
  t.deepEqual(scalable.map((d) => `${d.kind}.${d.version}.${d.group}`).sort(), [
    'Deployment.v1.apps',
    'Deployment.v1beta1.extensions',
    'ReplicaSet.v1.apps',
    'ReplicaSet.v1beta1.extensions',
    'ReplicationController.v1.',
  ]);
});

for (const def of scalable) {
  const apiVersion = def.group ? `${def.group}/${def.version}` : def.version;
  const resource = def.group ? `${def.plural}.${def.version}.${def.group}` : def.plural;
  test(`kubectl scale --current-replicas on ${resource}`, async (t) => {
    const k = kubectlFor(srv.url);
    // apps/v1 and extensions/v1beta1 serve the same objects: one name per group
    const name = `frontend-${def.kind.toLowerCase()}${def.group ? `-${def.group}` : ''}`;
    // a replication controller's selector is a plain map; the others' a label selector
    const selector = def.kind === 'ReplicationController' ? { app: name } : { matchLabels: { app: name } };
    const manifest = {
      apiVersion,
      kind: def.kind,
      metadata: { name },
      spec: { replicas: 3, selector, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'php', image: 'php:5' }] } } },
    };
    const created = await k.run(['create', '-f', k.file(`${name}.json`, JSON.stringify(manifest))]);
    t.is(created.code, 0, created.stderr);

    const scaled = await k.run(['scale', '--current-replicas=3', '--replicas=2', resource, name]);
    t.is(scaled.code, 0, scaled.stderr);
    t.regex(scaled.stdout, / scaled$/m);
    const path = `${def.group ? `/apis/${def.group}/${def.version}` : '/api/v1'}/namespaces/default/${def.plural}/${name}`;
    t.is((await srv.req('GET', path)).json.spec.replicas, 2);

    // the precondition is checked: 3 is no longer current
    const stale = await k.run(['scale', '--current-replicas=3', '--replicas=1', resource, name]);
    t.not(stale.code, 0);
    t.regex(stale.stderr, /Expected replicas to be 3, was 2/);
    t.is((await srv.req('GET', path)).json.spec.replicas, 2);

    // and without one (a patch of the scale subresource)
    const plain = await k.run(['scale', '--replicas=0', resource, name]);
    t.is(plain.code, 0, plain.stderr);
    t.is((await srv.req('GET', path)).json.spec.replicas, 0);
  });
}
