// RBAC policy read from a live API server (Portcullis or the reference): the four kinds are listed,
// then watched, and every change is compiled incrementally into the engine's data, as the server's
// own RBAC does from its store (authz/rbac/live.ts): a binding's change is a few data patches, not a
// recompile of the whole policy. A watch that ends or fails is re-listed after a pause, and the
// difference from what was known becomes the changes; while the server is away the last policy
// stays in force. The first load must succeed (no policy: no start).
import { StringDecoder } from 'node:string_decoder';
import { request } from 'undici';
import type { ApiObject } from '../api/object.ts';
import { isPlainObject } from '../api/object.ts';
import type { UserInfo } from '../authn/types.ts';
import { LiveRbac as LiveRbacState } from '../authz/rbac/live.ts';
import type { RbacEventSource, RbacObjectEvent } from '../authz/rbac/source.ts';
import { RBAC_GROUP, RBAC_RESOURCES, RBAC_VERSION, type RbacKind } from '../authz/rbac/objects.ts';
import type { Authorizer, AuthzAttributes, Decision } from '../authz/types.ts';
import { explainer, type LoadedPolicy } from './policy.ts';
import { openRemote } from './remote.ts';

export interface LiveRbac extends Authorizer {
  readonly current: LoadedPolicy;
  /** Batches of changes applied since the start (each list counts one). */
  readonly generation: number;
  close(): Promise<void>;
}

const KINDS = Object.keys(RBAC_RESOURCES) as RbacKind[];
const MAX_LIST = 32 << 20;
const MAX_LINE = 4 << 20;

/** An object whose name (and namespace, if any) are strings: the compiler keys bindings and roles by them. */
function isNamed(o: unknown): o is ApiObject {
  if (!isPlainObject(o) || !isPlainObject(o.metadata)) return false;
  const { name, namespace } = o.metadata;
  return typeof name === 'string' && name !== '' && (namespace === undefined || typeof namespace === 'string');
}

export async function liveRbac(kubeconfig: string, log: (m: string) => void, withExplain: boolean): Promise<LiveRbac> {
  const { base, agent, auth } = openRemote(kubeconfig);
  const url = (kind: RbacKind, q = ''): string => `${base}/apis/${RBAC_GROUP}/${RBAC_VERSION}/${RBAC_RESOURCES[kind]}${q}`;
  const objects = new Map<RbacKind, Map<string, ApiObject>>(KINDS.map((k) => [k, new Map()]));
  const versions = new Map<RbacKind, string>();
  const abort = new AbortController();
  let generation = 0;
  let listener: ((events: readonly RbacObjectEvent[]) => void) | undefined;
  const keyOf = (o: ApiObject): string => `${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`;
  const eventKey = (kind: RbacKind, o: ApiObject): RbacObjectEvent['key'] => ({ group: RBAC_GROUP, resource: RBAC_RESOURCES[kind], namespace: o.metadata.namespace ?? '', name: o.metadata.name ?? '' });
  const revision = (): string => `rbac:${KINDS.map((k) => versions.get(k) ?? '').join('.')}`;
  let current: LoadedPolicy | undefined;

  /** Hands changes to the compiled state (once it exists); the decision log's revision follows. */
  function changed(events: RbacObjectEvent[]): void {
    if (!events.length) return;
    listener?.(events);
    if (current) current.revision = revision();
    generation++;
  }

  /** Lists one kind; after the first load, what differs from the objects known becomes changes. */
  async function list(kind: RbacKind): Promise<void> {
    const res = await request(url(kind), { dispatcher: agent, headers: { accept: 'application/json', ...auth }, signal: abort.signal });
    const text = await res.body.text();
    if (res.statusCode !== 200) throw new Error(`listing ${RBAC_RESOURCES[kind]}: HTTP ${res.statusCode}`);
    if (text.length > MAX_LIST) throw new Error(`listing ${RBAC_RESOURCES[kind]}: oversized answer`);
    const doc: unknown = JSON.parse(text);
    if (!isPlainObject(doc) || !Array.isArray(doc.items)) throw new Error(`listing ${RBAC_RESOURCES[kind]}: not a list`);
    const m = new Map<string, ApiObject>();
    for (const item of doc.items) if (isNamed(item)) m.set(keyOf(item), item);
    const known = objects.get(kind)!;
    objects.set(kind, m);
    const meta = doc.metadata;
    versions.set(kind, isPlainObject(meta) && typeof meta.resourceVersion === 'string' ? meta.resourceVersion : '');
    const events: RbacObjectEvent[] = [];
    for (const [k, o] of m) {
      const was = known.get(k);
      if (!was || was.metadata.resourceVersion !== o.metadata.resourceVersion || o.metadata.resourceVersion === undefined) events.push({ type: was ? 'MODIFIED' : 'ADDED', key: eventKey(kind, o), object: o });
    }
    for (const [k, o] of known) if (!m.has(k)) events.push({ type: 'DELETED', key: eventKey(kind, o), object: o });
    changed(events);
  }

  /** One watch from the last list's version, applying events until it ends. */
  async function watch(kind: RbacKind): Promise<void> {
    const res = await request(url(kind, `?watch=true&resourceVersion=${encodeURIComponent(versions.get(kind) ?? '')}`), { dispatcher: agent, headers: { accept: 'application/json', ...auth }, signal: abort.signal, bodyTimeout: 0 });
    if (res.statusCode !== 200) { await res.body.dump(); throw new Error(`watching ${RBAC_RESOURCES[kind]}: HTTP ${res.statusCode}`); }
    let buf = '';
    const utf8 = new StringDecoder('utf8'); // a character may be split between chunks
    for await (const chunk of res.body) {
      buf += utf8.write(chunk as Buffer);
      if (buf.length > MAX_LINE) throw new Error(`watching ${RBAC_RESOURCES[kind]}: oversized event`);
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl).trim();
        buf = buf.slice(nl + 1);
        if (!line) continue;
        const ev: unknown = JSON.parse(line);
        if (!isPlainObject(ev)) continue;
        if (ev.type === 'ERROR') throw new Error(`watching ${RBAC_RESOURCES[kind]}: ${String(isPlainObject(ev.object) && typeof ev.object.message === 'string' ? ev.object.message : 'error')}`);
        if ((ev.type !== 'DELETED' && ev.type !== 'ADDED' && ev.type !== 'MODIFIED') || !isNamed(ev.object)) continue;
        const o = ev.object;
        if (typeof o.metadata.resourceVersion === 'string') versions.set(kind, o.metadata.resourceVersion);
        if (ev.type === 'DELETED') objects.get(kind)!.delete(keyOf(o));
        else objects.get(kind)!.set(keyOf(o), o);
        changed([{ type: ev.type, key: eventKey(kind, o), object: o }]);
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
      } catch (e) {
        if (!abort.signal.aborted) log(`portcullis proxy: RBAC list: ${(e as Error).message}`);
      }
    }
  }

  await Promise.all(KINDS.map(list));
  // the objects listed, and every change from now on, as the compiled state's event source
  const source: RbacEventSource = {
    list: (_group, resource) => ({ items: [...(objects.get(KINDS.find((k) => RBAC_RESOURCES[k] === resource)!)?.values() ?? [])] }),
    subscribe: (l) => {
      listener = l;
      return () => { listener = undefined; };
    },
  };
  const state = await LiveRbacState.open(source);
  const authorizer = state.authorizer!;
  current = { authorizer, revision: revision(), ...(withExplain ? { explain: explainer([state.policy]) } : {}) };
  generation++;
  const loops = KINDS.map(loop);

  return {
    name: 'RBAC (live)',
    get current() { return current!; },
    get generation() { return generation; },
    authorize(user: UserInfo, attrs: AuthzAttributes): Promise<Decision> | Decision {
      return authorizer.authorize(user, attrs);
    },
    async close() {
      abort.abort();
      await Promise.all(loops.map((l) => l.catch(() => undefined)));
      state.close();
      await agent.close();
    },
  };
}
