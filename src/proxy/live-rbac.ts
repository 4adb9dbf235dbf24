// RBAC policy read from a live API server (Portcullis or the reference): the four kinds are listed,
// then watched; every change rebuilds the compiled policy after a short quiet period and swaps it in
// with one assignment. A watch that ends or fails is re-listed after a pause; while the server is
// away the last policy stays in force. The first load must succeed (no policy: no start).
import { request } from 'undici';
import type { ApiObject } from '../api/object.ts';
import { isPlainObject } from '../api/object.ts';
import type { UserInfo } from '../authn/types.ts';
import { PolicyAuthorizer } from '../authz/policy-authorizer.ts';
import { RbacAuthorizer } from '../authz/rbac/authorizer.ts';
import { addObject, emptyObjects, RBAC_GROUP, RBAC_RESOURCES, RBAC_VERSION, type RbacKind } from '../authz/rbac/objects.ts';
import type { Authorizer, AuthzAttributes, Decision } from '../authz/types.ts';
import { PolicyEvaluator } from '../policy/evaluator.ts';
import { toData } from '../policy/format.ts';
import { compileRbac } from '../policy/rbac.ts';
import { explainer, type LoadedPolicy } from './policy.ts';
import { openRemote } from './remote.ts';

export interface LiveRbac extends Authorizer {
  readonly current: LoadedPolicy;
  /** Successful builds (the first included). */
  readonly generation: number;
  close(): Promise<void>;
}

const KINDS = Object.keys(RBAC_RESOURCES) as RbacKind[];
const MAX_LIST = 32 << 20;
const MAX_LINE = 4 << 20;

export async function liveRbac(kubeconfig: string, log: (m: string) => void, withExplain: boolean, quietMs = 100): Promise<LiveRbac> {
  const { base, agent, auth } = openRemote(kubeconfig);
  const url = (kind: RbacKind, q = ''): string => `${base}/apis/${RBAC_GROUP}/${RBAC_VERSION}/${RBAC_RESOURCES[kind]}${q}`;
  const objects = new Map<RbacKind, Map<string, ApiObject>>(KINDS.map((k) => [k, new Map()]));
  const versions = new Map<RbacKind, string>();
  const abort = new AbortController();
  let current: LoadedPolicy | undefined;
  let generation = 0;
  let timer: NodeJS.Timeout | undefined;
  const keyOf = (o: ApiObject): string => `${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`;

  async function build(): Promise<void> {
    const into = emptyObjects();
    for (const k of KINDS) for (const o of objects.get(k)!.values()) addObject(into, k, o);
    const policy = compileRbac(into);
    const authorizer = new RbacAuthorizer(new PolicyAuthorizer('RBAC', await PolicyEvaluator.engine(toData(policy))));
    // the revision: the servers' resource versions of the four lists as last seen
    current = { authorizer, revision: `rbac:${KINDS.map((k) => versions.get(k) ?? '').join('.')}`, ...(withExplain ? { explain: explainer([policy]) } : {}) };
    generation++;
  }

  const rebuild = (): void => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      build().then(() => log('portcullis proxy: RBAC policy rebuilt from the API server'), (e: unknown) => log(`portcullis proxy: RBAC rebuild failed, keeping the last good policy: ${(e as Error).message}`));
    }, quietMs);
  };

  async function list(kind: RbacKind): Promise<void> {
    const res = await request(url(kind), { dispatcher: agent, headers: { accept: 'application/json', ...auth }, signal: abort.signal });
    const text = await res.body.text();
    if (res.statusCode !== 200) throw new Error(`listing ${RBAC_RESOURCES[kind]}: HTTP ${res.statusCode}`);
    if (text.length > MAX_LIST) throw new Error(`listing ${RBAC_RESOURCES[kind]}: oversized answer`);
    const doc: unknown = JSON.parse(text);
    if (!isPlainObject(doc) || !Array.isArray(doc.items)) throw new Error(`listing ${RBAC_RESOURCES[kind]}: not a list`);
    const m = new Map<string, ApiObject>();
    for (const item of doc.items) if (isPlainObject(item) && isPlainObject(item.metadata)) m.set(keyOf(item as ApiObject), item as ApiObject);
    objects.set(kind, m);
    const meta = doc.metadata;
    versions.set(kind, isPlainObject(meta) && typeof meta.resourceVersion === 'string' ? meta.resourceVersion : '');
  }

  /** One watch from the last list's version, applying events until it ends. */
  async function watch(kind: RbacKind): Promise<void> {
    const res = await request(url(kind, `?watch=true&resourceVersion=${encodeURIComponent(versions.get(kind) ?? '')}`), { dispatcher: agent, headers: { accept: 'application/json', ...auth }, signal: abort.signal, bodyTimeout: 0 });
    if (res.statusCode !== 200) { await res.body.dump(); throw new Error(`watching ${RBAC_RESOURCES[kind]}: HTTP ${res.statusCode}`); }
    let buf = '';
    for await (const chunk of res.body) {
      buf += (chunk as Buffer).toString();
      if (buf.length > MAX_LINE) throw new Error(`watching ${RBAC_RESOURCES[kind]}: oversized event`);
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl).trim();
        buf = buf.slice(nl + 1);
        if (!line) continue;
        const ev: unknown = JSON.parse(line);
        if (!isPlainObject(ev) || !isPlainObject(ev.object) || !isPlainObject(ev.object.metadata)) continue;
        const o = ev.object as ApiObject;
        if (ev.type === 'ERROR') throw new Error(`watching ${RBAC_RESOURCES[kind]}: ${String((ev.object as { message?: unknown }).message ?? 'error')}`);
        if (typeof o.metadata.resourceVersion === 'string') versions.set(kind, o.metadata.resourceVersion);
        if (ev.type === 'DELETED') objects.get(kind)!.delete(keyOf(o));
        else if (ev.type === 'ADDED' || ev.type === 'MODIFIED') objects.get(kind)!.set(keyOf(o), o);
        else continue;
        rebuild();
      }
    }
  }

  async function loop(kind: RbacKind): Promise<void> {
    while (!abort.signal.aborted) {
      try {
        await watch(kind);
      } catch (e) {
        if (abort.signal.aborted) return;
        log(`portcullis proxy: RBAC watch: ${(e as Error).message}`);
      }
      // relist after a pause (a watch that ended may have missed events)
      await new Promise((r) => setTimeout(r, 1000));
      if (abort.signal.aborted) return;
      try {
        await list(kind);
        rebuild();
      } catch (e) {
        if (!abort.signal.aborted) log(`portcullis proxy: RBAC list: ${(e as Error).message}`);
      }
    }
  }

  await Promise.all(KINDS.map(list));
  await build();
  const loops = KINDS.map(loop);

  return {
    name: 'RBAC (live)',
    get current() { return current!; },
    get generation() { return generation; },
    authorize(user: UserInfo, attrs: AuthzAttributes): Promise<Decision> | Decision {
      return current!.authorizer.authorize(user, attrs);
    },
    async close() {
      clearTimeout(timer);
      abort.abort();
      await Promise.allSettled(loops);
      await agent.close();
    },
  };
}
