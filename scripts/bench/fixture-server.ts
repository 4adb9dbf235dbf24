// A Portcullis server for benchmarks, in its own process so the load generator does not share its
// event loop. Seeds 100 ConfigMaps in namespace `bench`, prints its URL on stdout, runs until killed.
import { createServer } from '../../src/server/server.ts';

const server = await createServer({ insecurePort: 0, authorizationMode: ['AlwaysAllow'], maxRequestsInflight: 0, maxMutatingRequestsInflight: 0 });
const def = server.catalogue.lookup('', 'v1', 'namespaces')!;
const cm = server.catalogue.lookup('', 'v1', 'configmaps')!;
const user = { name: 'bench', groups: ['system:masters'] };
const q = new URLSearchParams();
await server.registry.create({ def, namespace: '', name: '', subresource: '', query: q, user, body: { metadata: { name: 'bench' } } });
for (let i = 0; i < 100; i++) {
  await server.registry.create({ def: cm, namespace: 'bench', name: '', subresource: '', query: q, user, body: { metadata: { name: `cm-${i}`, labels: { app: 'bench' } }, data: { key: `value-${i}` } } });
}
process.stdout.write(`${server.insecureUrl}\n`);
