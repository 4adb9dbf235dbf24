// A real server in RBAC mode on a loopback port, with a static token file: each token acts as a
// different user (CSV `token,user,uid,"group1,group2"`). Shared by the rbac-*.test.ts files.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createServer, type PortcullisServer, type ServerDeps } from '../../src/server/server.ts';
import type { ServerOptions } from '../../src/config/options.ts';
import type { RbacCase, RbacDoc } from '../unit/rbac-vectors.ts';

export const RBAC = '/apis/rbac.authorization.platform.io/v1alpha1';
export const MASTER = 'master-token';

export interface Reply { status: number; json: any; text: string } // eslint-disable-line @typescript-eslint/no-explicit-any -- responses are inspected loosely

export interface RbacServer {
  server: PortcullisServer;
  req(token: string | null, method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Reply>;
  /** Create as master, or replace when it exists. */
  apply(doc: RbacDoc): Promise<Reply>;
  ensureNamespace(ns: string): Promise<void>;
  /** The server's decision for a case, through a SubjectAccessReview. */
  decide(c: RbacCase): Promise<{ allowed: boolean; reason?: string }>;
  close(): Promise<void>;
}

/**
 * users: token → [user, groups]. The master token (group system:masters) is always there. `deps` adds
 * authorizers by mode name (name them in opts.authorizationMode).
 */
export async function startRbacServer(users: Record<string, [string, string[]]> = {}, opts: Partial<ServerOptions> = {}, deps: ServerDeps = {}): Promise<RbacServer> {
  const dir = mkdtempSync(path.join(tmpdir(), 'rbac-server-'));
  const lines = Object.entries({ [MASTER]: ['root', ['system:masters']] as [string, string[]], ...users })
    .map(([token, [user, groups]], i) => `${token},${user},${i + 1},"${groups.join(',')}"`);
  const tokenAuthFile = path.join(dir, 'tokens.csv');
  writeFileSync(tokenAuthFile, lines.join('\n') + '\n');
  const server = await createServer({
    insecurePort: 0, authorizationMode: ['RBAC'], tokenAuthFile, runtimeConfig: ['authorization.platform.io/v1beta1=true'], ...opts,
  }, { log: () => {}, ...deps });
  const base = server.insecureUrl!;
  const req = async (token: string | null, method: string, p: string, body?: unknown, more: Record<string, string> = {}): Promise<Reply> => {
    const headers: Record<string, string> = { 'content-type': 'application/json', ...more };
    if (token) headers.authorization = `Bearer ${token}`;
    const res = await fetch(base + p, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    let json: unknown;
    try { json = JSON.parse(text); } catch { json = undefined; }
    return { status: res.status, json, text };
  };
  const pathOf = (doc: RbacDoc) => {
    const plural = { Role: 'roles', ClusterRole: 'clusterroles', RoleBinding: 'rolebindings', ClusterRoleBinding: 'clusterrolebindings' }[doc.kind]!;
    return doc.metadata.namespace ? `${RBAC}/namespaces/${doc.metadata.namespace}/${plural}` : `${RBAC}/${plural}`;
  };
  const ensureNamespace = async (ns: string) => {
    const r = await req(MASTER, 'POST', '/api/v1/namespaces', { metadata: { name: ns } });
    if (r.status !== 201 && r.status !== 409) throw new Error(`namespace ${ns}: ${r.status} ${r.text}`);
  };
  return {
    server,
    req,
    ensureNamespace,
    async apply(doc) {
      if (doc.metadata.namespace) await ensureNamespace(doc.metadata.namespace);
      const created = await req(MASTER, 'POST', pathOf(doc), doc);
      if (created.status !== 409) return created;
      return req(MASTER, 'PUT', `${pathOf(doc)}/${encodeURIComponent(doc.metadata.name)}`, doc);
    },
    async decide(c) {
      const spec: Record<string, unknown> = { user: c.user, group: c.groups ?? [] };
      if (c.path !== undefined) spec.nonResourceAttributes = { verb: c.verb, path: c.path };
      else {
        const [resource, subresource = ''] = c.resource!.split('/', 2);
        spec.resourceAttributes = { verb: c.verb, resource, subresource, namespace: c.namespace ?? '', group: c.apiGroup ?? '', name: c.name ?? '' };
      }
      // SubjectAccessReview needs a user or a group; an empty identity is asked directly
      if (!c.user && !(c.groups ?? []).length) {
        const { attributesFor } = await import('../../src/cli/can-i.ts');
        const a = c.path !== undefined ? attributesFor(c.verb, c.path) : attributesFor(c.verb, c.resource!, c.name ?? '', c.namespace ?? '', c.apiGroup ?? '');
        return server.authorizer.authorize({ name: '', groups: [] }, a);
      }
      const r = await req(MASTER, 'POST', '/apis/authorization.platform.io/v1beta1/subjectaccessreviews', { apiVersion: 'authorization.platform.io/v1beta1', kind: 'SubjectAccessReview', spec });
      if (r.status !== 201) throw new Error(`SubjectAccessReview: ${r.status} ${r.text}`);
      return r.json.status;
    },
    close: () => server.close(),
  };
}
