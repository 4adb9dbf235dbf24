// etcd key layout: `<prefix>/<group or "core">/<resource>/<namespace>/<name>`, the namespace segment
// left out for cluster-scoped objects. Names and namespaces never contain "/", so the segment count
// tells the two apart.
import type { ObjectKey } from '../backend.ts';

const CORE = 'core';

export function etcdKey(prefix: string, key: ObjectKey): string {
  const group = key.group || CORE;
  return key.namespace
    ? `${prefix}/${group}/${key.resource}/${key.namespace}/${key.name}`
    : `${prefix}/${group}/${key.resource}/${key.name}`;
}

/** The ObjectKey of an etcd key under `prefix`, or undefined for keys this layout did not write. */
export function parseEtcdKey(prefix: string, raw: string): ObjectKey | undefined {
  if (!raw.startsWith(`${prefix}/`)) return undefined;
  const parts = raw.slice(prefix.length + 1).split('/');
  if (parts.some((p) => p === '')) return undefined;
  const group = parts[0] === CORE ? '' : parts[0]!;
  if (parts.length === 4) return { group, resource: parts[1]!, namespace: parts[2]!, name: parts[3]! };
  if (parts.length === 3) return { group, resource: parts[1]!, namespace: '', name: parts[2]! };
  return undefined;
}
