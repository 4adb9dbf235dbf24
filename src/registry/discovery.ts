import { gvString, type Catalogue, type ResourceDef } from '../api/catalogue.ts';

// Discovery documents (api-machinery §7), all derived from the catalogue.

export interface ServerAddress {
  clientCIDR: string;
  serverAddress: string;
}

export function apiVersions(addr: ServerAddress[]) {
  return { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: addr };
}

function groupEntry(cat: Catalogue, group: string, addr: ServerAddress[]) {
  const versions = cat.groupVersions.filter((g) => g.group === group).map((g) => ({ groupVersion: gvString(g.group, g.version), version: g.version }));
  return { name: group, versions, preferredVersion: versions[0], serverAddressByClientCIDRs: addr };
}

export function apiGroupList(cat: Catalogue, addr: ServerAddress[]) {
  const groups = [...new Set(cat.groupVersions.filter((g) => g.group !== '').map((g) => g.group))];
  return { kind: 'APIGroupList', apiVersion: 'v1', groups: groups.map((g) => groupEntry(cat, g, addr)) };
}

export function apiGroup(cat: Catalogue, group: string, addr: ServerAddress[]) {
  if (!cat.groupVersions.some((g) => g.group === group && g.group !== '')) return undefined;
  return { kind: 'APIGroup', apiVersion: 'v1', ...groupEntry(cat, group, addr) };
}

function resourceEntry(cat: Catalogue, r: ResourceDef) {
  const e: Record<string, unknown> = {
    name: r.plural,
    singularName: r.singular,
    namespaced: r.namespaced,
    kind: r.kind,
    verbs: [...r.verbs].sort(),
  };
  if (r.shortNames.length) e.shortNames = r.shortNames;
  const categories = cat.categoriesOf(r);
  if (categories?.length) e.categories = categories;
  return e;
}

export function apiResourceList(cat: Catalogue, group: string, version: string) {
  const resources: Record<string, unknown>[] = [];
  for (const r of cat.inGroupVersion(group, version)) {
    resources.push(resourceEntry(cat, r));
    for (const s of r.subresources) {
      const row: Record<string, unknown> = { name: `${r.plural}/${s.name}`, singularName: '', namespaced: r.namespaced, kind: s.kind, verbs: [...s.verbs].sort() };
      if (s.group !== undefined) Object.assign(row, { group: s.group, version: s.version });
      resources.push(row);
    }
  }
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: gvString(group, version), resources };
}

export const versionInfo = {
  major: '1',
  minor: '4',
  gitVersion: 'v1.4.0-portcullis',
  gitCommit: '',
  gitTreeState: 'clean',
  buildDate: '2026-11-22T00:00:00Z',
  goVersion: `node${process.versions.node}`,
  // the build (`npm run build`, tsc) or the sources run as they are (tsx, in the tests)
  compiler: import.meta.url.endsWith('.ts') ? 'tsx' : 'tsc',
  platform: `${process.platform}/${process.arch}`,
};
