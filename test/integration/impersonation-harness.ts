// An RBAC server set up for impersonation tests (HTTP in impersonation.test.ts, kubectl in
// test/e2e/kubectl-impersonation.test.ts):
// - alice may impersonate user bob and system:anonymous, group pod-readers, extra scopes=view,
//   uid uid-1, and (through the bootstrap `edit` role bound in x) the service accounts of x; she may
//   herself list pods in x.
// - bob may list pods in y only; group pod-readers may list pods in x. carol may do nothing.
import type { ServerOptions } from '../../src/config/options.ts';
import type { ServerDeps } from '../../src/server/server.ts';
import { clusterRole, clusterRoleBinding, Group, role, roleBinding, User } from '../unit/rbac-vectors.ts';
import { MASTER, startRbacServer, type RbacServer } from './rbac-harness.ts';

export const AUTHN_GROUP = 'authentication.platform.io';

export async function startImpersonationServer(opts: Partial<ServerOptions> = {}, deps: ServerDeps = {}): Promise<RbacServer> {
  const s = await startRbacServer({ 'alice-token': ['alice', []], 'bob-token': ['bob', []], 'carol-token': ['carol', []] }, opts, deps);
  try {
    const podReader = [{ verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['pods'] }];
    const docs = [
      clusterRole('impersonator', [
        { verbs: ['impersonate'], apiGroups: [''], resources: ['users'], resourceNames: ['bob', 'system:anonymous'] },
        { verbs: ['impersonate'], apiGroups: [''], resources: ['groups'], resourceNames: ['pod-readers'] },
        { verbs: ['impersonate'], apiGroups: [AUTHN_GROUP], resources: ['userextras/scopes'], resourceNames: ['view'] },
        { verbs: ['impersonate'], apiGroups: [AUTHN_GROUP], resources: ['uids'], resourceNames: ['uid-1'] },
      ]),
      clusterRoleBinding('alice-impersonates', 'impersonator', [User('alice')]),
      roleBinding('x', 'alice-edits', 'ClusterRole', 'edit', [User('alice')]),
      role('x', 'pod-reader', podReader),
      roleBinding('x', 'pod-readers', 'Role', 'pod-reader', [Group('pod-readers')]),
      role('y', 'pod-reader', podReader),
      roleBinding('y', 'bob-reads', 'Role', 'pod-reader', [User('bob')]),
    ];
    for (const doc of docs) {
      const r = await s.apply(doc);
      if (r.status !== 201) throw new Error(`${doc.kind} ${doc.metadata.name}: ${r.status} ${r.text}`);
    }
    for (const ns of ['x', 'y']) {
      const pod = { metadata: { name: `web-${ns}` }, spec: { containers: [{ name: 'c', image: 'nginx' }] } };
      const r = await s.req(MASTER, 'POST', `/api/v1/namespaces/${ns}/pods`, pod);
      if (r.status !== 201) throw new Error(`pod in ${ns}: ${r.status} ${r.text}`);
    }
    return s;
  } catch (e) {
    await s.close();
    throw e;
  }
}
