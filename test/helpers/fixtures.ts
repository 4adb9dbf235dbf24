// A minimal valid object of every stored kind, for tests that walk the whole catalogue.

const container = { name: 'c', image: 'nginx:1.11' };
const podSpec = { containers: [container] };
const template = { metadata: { labels: { app: 'x' } }, spec: podSpec };

export const validBodies: Record<string, Record<string, unknown>> = {
  ConfigMap: { data: { greeting: 'hello' } },
  Endpoints: { subsets: [{ addresses: [{ ip: '10.0.0.1' }], ports: [{ port: 80 }] }] },
  Event: { involvedObject: { kind: 'Pod', name: 'p', namespace: '$NS' }, reason: 'Tested', message: 'a test event', type: 'Normal' },
  LimitRange: { spec: { limits: [{ type: 'Container', max: { cpu: '1' } }] } },
  PersistentVolumeClaim: { spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } },
  Pod: { spec: podSpec },
  PodTemplate: { template },
  ReplicationController: { spec: { replicas: 1, selector: { app: 'x' }, template } },
  ResourceQuota: { spec: { hard: { pods: '10' } } },
  Secret: { data: { password: Buffer.from('s3cret').toString('base64') } },
  ServiceAccount: {},
  Service: { spec: { ports: [{ port: 80 }], selector: { app: 'x' } } },
  Namespace: {},
  Node: { spec: {} },
  PersistentVolume: { spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/tmp' } } },
  HorizontalPodAutoscaler: { spec: { scaleTargetRef: { kind: 'Deployment', name: 'd', apiVersion: 'extensions/v1beta1' }, minReplicas: 1, maxReplicas: 3 } },
  'HorizontalPodAutoscaler.extensions': { spec: { scaleRef: { kind: 'Deployment', name: 'd', subresource: 'scale' }, minReplicas: 1, maxReplicas: 3 } },
  Job: { spec: { template: { metadata: { labels: { job: 'x' } }, spec: { ...podSpec, restartPolicy: 'Never' } } } },
  DaemonSet: { spec: { template } },
  Deployment: { spec: { replicas: 2, template } },
  ReplicaSet: { spec: { replicas: 2, template } },
  Ingress: { spec: { backend: { serviceName: 's', servicePort: 80 } } },
  NetworkPolicy: { spec: { podSelector: {} } },
  ThirdPartyResource: { versions: [{ name: 'v1' }] },
  Role: { rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }] },
  ClusterRole: { rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }] },
  RoleBinding: { subjects: [{ kind: 'User', name: 'alice' }], roleRef: { kind: 'Role', name: 'r', apiGroup: 'rbac.authorization.platform.io' } },
  ClusterRoleBinding: { subjects: [{ kind: 'User', name: 'alice' }], roleRef: { kind: 'ClusterRole', name: 'r', apiGroup: 'rbac.authorization.platform.io' } },
};

/** Names per kind where the default `<kind>-1` would be invalid. */
export function nameFor(kind: string, n = 1): string {
  if (kind === 'ThirdPartyResource') return `cron-tab${n}.stable.example.com`;
  return `${kind.toLowerCase()}-${n}`;
}

/** A valid body of `kind` (served by `group`, where the group changes the shape) named `name`. */
export function bodyFor(kind: string, name: string, ns: string, group = '', suite = 'crud'): Record<string, unknown> {
  const fixture = validBodies[`${kind}.${group}`] ?? validBodies[kind] ?? {};
  const b = JSON.parse(JSON.stringify(fixture).replaceAll('$NS', ns)) as Record<string, unknown>;
  return { ...b, metadata: { name, labels: { suite } } };
}
