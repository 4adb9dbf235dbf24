// The cluster client configuration ("kubeconfig") format: clusters, users, contexts, current-context.
// Used for the admin kubeconfig that `certs init` writes and for webhook configuration files.
// File references are resolved relative to the file's own directory, as kubectl does.
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { parse, stringify } from 'yaml';

export interface KubeconfigCluster {
  server: string;
  'certificate-authority'?: string;
  'certificate-authority-data'?: string;
  'insecure-skip-tls-verify'?: boolean;
  'tls-server-name'?: string;
}

export interface KubeconfigUser {
  'client-certificate'?: string;
  'client-certificate-data'?: string;
  'client-key'?: string;
  'client-key-data'?: string;
  token?: string;
  tokenFile?: string;
  username?: string;
  password?: string;
}

export interface KubeconfigContext {
  cluster: string;
  user: string;
  namespace?: string;
}

export interface Kubeconfig {
  apiVersion: string;
  kind: string;
  clusters: { name: string; cluster: KubeconfigCluster }[];
  users: { name: string; user: KubeconfigUser }[];
  contexts: { name: string; context: KubeconfigContext }[];
  'current-context': string;
  preferences?: Record<string, unknown>;
}

/** The selected context with its cluster and user, PEM material loaded from paths or *-data. */
export interface ResolvedKubeconfig {
  contextName: string;
  server: string;
  namespace?: string;
  insecureSkipTlsVerify: boolean;
  tlsServerName?: string;
  /** PEM text, when configured. */
  ca?: string;
  cert?: string;
  key?: string;
  token?: string;
  username?: string;
  password?: string;
}

export class KubeconfigError extends Error {}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function namedList<T>(doc: Record<string, unknown>, key: string, inner: string, source: string): { name: string; value: T }[] {
  const raw = doc[key];
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw new KubeconfigError(`${source}: "${key}" must be a list`);
  return raw.map((entry, i) => {
    if (!isRecord(entry) || typeof entry.name !== 'string') throw new KubeconfigError(`${source}: ${key}[${i}] needs a "name"`);
    const value = entry[inner];
    if (value !== undefined && !isRecord(value)) throw new KubeconfigError(`${source}: ${key}[${i}].${inner} must be a map`);
    return { name: entry.name, value: (value ?? {}) as T };
  });
}

/** Parse kubeconfig YAML (or JSON) text. `source` names the file in error messages. */
export function parseKubeconfig(text: string, source = 'kubeconfig'): Kubeconfig {
  let doc: unknown;
  try {
    doc = parse(text);
  } catch (err) {
    throw new KubeconfigError(`${source}: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (!isRecord(doc)) throw new KubeconfigError(`${source}: not a kubeconfig document`);
  const current = doc['current-context'];
  return {
    apiVersion: typeof doc.apiVersion === 'string' ? doc.apiVersion : 'v1',
    kind: typeof doc.kind === 'string' ? doc.kind : 'Config',
    clusters: namedList<KubeconfigCluster>(doc, 'clusters', 'cluster', source).map((e) => ({ name: e.name, cluster: e.value })),
    users: namedList<KubeconfigUser>(doc, 'users', 'user', source).map((e) => ({ name: e.name, user: e.value })),
    contexts: namedList<KubeconfigContext>(doc, 'contexts', 'context', source).map((e) => ({ name: e.name, context: e.value })),
    'current-context': typeof current === 'string' ? current : '',
    ...(isRecord(doc.preferences) ? { preferences: doc.preferences } : {}),
  };
}

export function stringifyKubeconfig(cfg: Kubeconfig): string {
  return stringify(cfg);
}

export function readKubeconfig(path: string): Kubeconfig {
  return parseKubeconfig(readFileSync(path, 'utf8'), path);
}

/**
 * Pick a context (the current one by default) and load its material. `baseDir` is where relative
 * file references point (the kubeconfig's directory).
 */
export function resolveKubeconfig(cfg: Kubeconfig, baseDir: string, contextName?: string): ResolvedKubeconfig {
  const name = contextName ?? cfg['current-context'];
  let ctx = cfg.contexts.find((c) => c.name === name)?.context;
  // A file with one cluster and one user and no contexts (common in webhook configs) is unambiguous.
  if (!ctx && !name && cfg.clusters.length === 1) ctx = { cluster: cfg.clusters[0].name, user: cfg.users[0]?.name ?? '' };
  if (!ctx) throw new KubeconfigError(name ? `context "${name}" not found` : 'no current-context set');
  const cluster = cfg.clusters.find((c) => c.name === ctx.cluster)?.cluster;
  if (!cluster) throw new KubeconfigError(`cluster "${ctx.cluster}" not found`);
  if (typeof cluster.server !== 'string' || cluster.server === '') throw new KubeconfigError(`cluster "${ctx.cluster}" has no server`);
  const user: KubeconfigUser = cfg.users.find((u) => u.name === ctx.user)?.user ?? {};

  const material = (data: string | undefined, path: string | undefined): string | undefined => {
    if (data) return Buffer.from(data, 'base64').toString('utf8');
    if (path) return readFileSync(isAbsolute(path) ? path : resolve(baseDir, path), 'utf8');
    return undefined;
  };
  const token = user.token ?? (user.tokenFile ? material(undefined, user.tokenFile)?.trim() : undefined);
  const out: ResolvedKubeconfig = {
    contextName: name,
    server: cluster.server,
    insecureSkipTlsVerify: cluster['insecure-skip-tls-verify'] === true,
    ca: material(cluster['certificate-authority-data'], cluster['certificate-authority']),
    cert: material(user['client-certificate-data'], user['client-certificate']),
    key: material(user['client-key-data'], user['client-key']),
  };
  if (ctx.namespace) out.namespace = ctx.namespace;
  if (cluster['tls-server-name']) out.tlsServerName = cluster['tls-server-name'];
  if (token) out.token = token;
  if (user.username !== undefined) out.username = user.username;
  if (user.password !== undefined) out.password = user.password;
  for (const k of ['ca', 'cert', 'key'] as const) if (out[k] === undefined) delete out[k];
  return out;
}

/** Read a kubeconfig file and resolve its current (or named) context. */
export function loadKubeconfig(path: string, contextName?: string): ResolvedKubeconfig {
  return resolveKubeconfig(readKubeconfig(path), dirname(resolve(path)), contextName);
}
