// The catalogue rows of the kubelet-facing subresources (served by src/registry/kubelet/ on the raw
// request and by the upgrade entry, so no handler factory). Kind as the 1.4 discovery names it: the parent's.
import type { SubresourceRow } from '../kind.ts';

const PROXY_VERBS: SubresourceRow['verbs'] = ['create', 'delete', 'get', 'update'];

export const podKubeletSubresources: SubresourceRow[] = [
  { name: 'log', kind: 'Pod', verbs: ['get'] },
  { name: 'exec', kind: 'Pod', verbs: ['create', 'get'] },
  { name: 'attach', kind: 'Pod', verbs: ['create', 'get'] },
  { name: 'portforward', kind: 'Pod', verbs: ['create', 'get'] },
  { name: 'proxy', kind: 'Pod', verbs: PROXY_VERBS },
];

export const proxySubresource = (kind: string): SubresourceRow => ({ name: 'proxy', kind, verbs: PROXY_VERBS });
