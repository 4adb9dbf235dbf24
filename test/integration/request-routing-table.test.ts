// Issue #13: request-info and routing agree by construction. For EVERY catalogue row (all groups on)
// and every path form, a recording authorizer keeps the attributes it decided on, and the test checks
// they name what the handler touched: the objects returned (get, list, watch events), the objects the
// store shows changed (writes), or, for a path that addresses nothing, a 4xx Status with nothing
// changed. Requests go over a raw HTTP client: fetch would normalise `.`/`..` segments away.
import { STREAMING_SUBRESOURCES } from '../../src/registry/kubelet/service.ts';
import test, { type ExecutionContext } from 'ava';
import http from 'node:http';
import net from 'node:net';
import { gvPath, type ResourceDef } from '../../src/api/catalogue.ts';
import { resources } from '../../src/kinds/catalogue.ts';
import type { ApiObject } from '../../src/api/object.ts';
import type { Authorizer, AuthzAttributes } from '../../src/authz/types.ts';
import { createServer, type PortcullisServer } from '../../src/server/server.ts';
import { bodyFor, nameFor } from '../helpers/fixtures.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- responses are inspected loosely
interface Reply { status: number; text: string; json?: Json; events?: Json[] }

const records: AuthzAttributes[] = [];
const recorder: Authorizer = {
  name: 'Webhook',
  authorize(_user, attrs) {
    records.push({ ...attrs });
    return { allowed: true, reason: '' };
  },
};

let server: PortcullisServer;
let port = 0;
const A = 'a';
const B = 'b';
const MERGE = 'application/merge-patch+json';

function raw(method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const req = http.request({ host: '127.0.0.1', port, method, path, headers: data ? { 'content-type': contentType, 'content-length': data.length } : {} }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString();
        let json: Json | undefined;
        try { json = JSON.parse(text) as Json; } catch { json = undefined; }
        resolve({ status: res.statusCode!, text, json });
      });
    });
    req.on('error', reject);
    req.end(data);
  });
}

/** A watch: the events that arrive until the stream has been quiet for a moment (or a non-200 answer). */
function watch(path: string): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method: 'GET', path }, (res) => {
      let text = '';
      let idle: NodeJS.Timeout | undefined;
      const done = () => {
        clearTimeout(idle);
        clearTimeout(limit);
        req.destroy();
        const events = res.statusCode === 200 ? text.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Json) : undefined;
        let json: Json | undefined;
        if (res.statusCode !== 200) try { json = JSON.parse(text) as Json; } catch { json = undefined; }
        resolve({ status: res.statusCode!, text, json, events });
      };
      const limit = setTimeout(done, 5000);
      res.on('data', (c: Buffer) => {
        text += c.toString();
        clearTimeout(idle);
        idle = setTimeout(done, 250);
      });
      res.on('end', done);
      res.on('error', () => {});
    });
    req.on('error', reject);
    req.end();
  });
}

// ---------- what the store holds ----------

const storages = [...new Set(resources.filter((r) => !r.virtual).map((r) => `${r.storageGroup}/${r.plural}`))];

/** The controllers' own objects: each namespace's default account and each account's token secret. */
function controllerOwned(storage: string, o: ApiObject): boolean {
  if (storage === '/serviceaccounts') return o.metadata.name === 'default';
  return storage === '/secrets' && (o as Json).type === 'platform.io/service-account-token';
}

/** Every stored object the test owns, `storage|namespace|name` → resourceVersion; what controllers
 * write (in namespaces the test creates and deletes, or their own objects) is left out. */
function snapshot(): Map<string, string> {
  const out = new Map<string, string>();
  for (const s of storages) {
    const [group, resource] = s.split('/');
    for (const o of server.store.list(group, resource).items) {
      const ns = o.metadata.namespace ?? '';
      if ((ns !== '' && ns !== A && ns !== B) || controllerOwned(s, o)) continue;
      out.set(`${s}|${ns}|${o.metadata.name}`, `${o.metadata.resourceVersion}`);
    }
  }
  return out;
}

function changedKeys(before: Map<string, string>, after: Map<string, string>): string[] {
  const keys = new Set([...before.keys(), ...after.keys()]);
  return [...keys].filter((k) => before.get(k) !== after.get(k)).sort();
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * After a write, the controllers' reactions (an account's token reference, a namespace's finalization)
 * land before the next request: deletions finish and the store stays still for a moment.
 */
async function settle(): Promise<void> {
  let last = '';
  for (let quiet = 0, i = 0; quiet < 3; i++) {
    if (i > 400) throw new Error('the store did not settle');
    await sleep(30);
    const now = JSON.stringify([...snapshot()]);
    const deleting = server.store.list('', 'namespaces').items.some((n) => n.metadata.deletionTimestamp);
    quiet = now === last && !deleting ? quiet + 1 : 0;
    last = now;
  }
}

// ---------- the invariant ----------

const isNamespaceKind = (def: ResourceDef) => def.group === '' && def.plural === 'namespaces';

/** Does the object (namespace, name) fall within what the authorizer was asked about? */
function within(def: ResourceDef, a: AuthzAttributes, ns: string, name: string): boolean {
  if (def.namespaced) {
    if (a.namespace === '') return a.verb === 'list' || a.verb === 'watch'; // all namespaces: reads only
    return ns === a.namespace && (a.name === '' || name === a.name);
  }
  if (ns !== '') return false;
  if (isNamespaceKind(def) && a.name !== '') return a.namespace === a.name && name === a.name;
  return a.namespace === '' && (a.name === '' || name === a.name);
}

function returnedObjects(r: Reply): Json[] {
  if (r.events) return r.events.map((e) => e.object as Json);
  const j = r.json;
  if (!j || j.kind === 'Status') return [];
  if (Array.isArray(j.items)) return j.items as Json[];
  return j.metadata?.name ? [j] : []; // reviews carry no name: nothing stored was read
}

interface Case {
  form: string;
  method: string;
  path: string;
  body?: unknown;
  contentType?: string;
  status: number;
  /** A success must have changed at least one object. */
  writes?: boolean;
  /** Set for a path that routes nowhere: what the authorizer saw (a non-resource path for a malformed one). */
  nonResource?: boolean;
  /** The review kinds: the spec's namespace is what gets evaluated. */
  reviewNamespace?: string;
}

const writeVerbs = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);

async function check(t: ExecutionContext, def: ResourceDef, c: Case): Promise<void> {
  const what = `${def.group}/${def.version} ${def.plural}: ${c.form}: ${c.method} ${c.path}`;
  records.length = 0;
  const before = snapshot();
  const r = c.path.includes('/watch/') || /[?&]watch=true/.test(c.path) ? await watch(c.path) : await raw(c.method, c.path, c.body, c.contentType);
  const changed = changedKeys(before, snapshot());
  t.is(r.status, c.status, `${what}: ${r.text.slice(0, 300)}`);
  const a = records[0];
  if (!a) return void t.fail(`${what}: the authorizer was not asked`);
  if (c.nonResource) {
    t.false(a.isResourceRequest, what);
    t.is(a.path, c.path.split('?')[0], what);
  } else {
    t.true(a.isResourceRequest, what);
    t.deepEqual([a.apiGroup, a.apiVersion, a.resource], [def.group, def.version, def.plural], what);
  }
  if (r.status >= 400) {
    t.is(r.json?.kind, 'Status', what);
    t.is(r.json?.code, c.status, what);
    t.deepEqual(changed, [], `${what}: a refused request changes nothing`);
  } else {
    const storage = def.kind === 'Binding' ? '/pods' : `${def.storageGroup}/${def.plural}`;
    for (const k of changed) {
      const [s, ns, name] = k.split('|');
      t.is(s, storage, `${what}: touched ${k}`);
      t.true(within(def, a, ns, name), `${what}: touched ${k}, authorized ${JSON.stringify(a)}`);
    }
    if (c.writes) t.not(changed.length, 0, `${what}: wrote nothing`);
    if (!writeVerbs.has(a.verb)) t.deepEqual(changed, [], `${what}: a read changed the store`);
    if (r.events) t.not(r.events.length, 0, `${what}: the watch showed nothing to check`);
    for (const o of returnedObjects(r)) {
      const ns = (o.metadata?.namespace as string | undefined) ?? '';
      t.true(within(def, a, ns, o.metadata?.name as string), `${what}: returned ${ns}/${o.metadata?.name}, authorized ${JSON.stringify(a)}`);
    }
    if (c.reviewNamespace !== undefined) t.is(records[1]?.namespace, c.reviewNamespace, `${what}: the review evaluated another namespace`);
  }
  if (changed.length > 0) await settle();
}

// ---------- the cases of one row ----------

interface Names { n: string; del: string; doomed: string; created: string }

/** Per row: Job and HPA are served by two groups from one store, each row works on its own objects. */
function namesOf(def: ResourceDef, i: number): Names {
  if (def.kind === 'ComponentStatus') return { n: 'controller-manager', del: '', doomed: '', created: '' };
  const names = { n: nameFor(def.kind, 100 + i), del: nameFor(def.kind, 200 + i), doomed: nameFor(def.kind, 300 + i), created: nameFor(def.kind, 400 + i) };
  return isNamespaceKind(def) ? { ...names, n: A } : names;
}

const opStatus = (def: ResourceDef, verb: string, ok: number) => (def.verbs.includes(verb as never) ? ok : 405);

async function get(path: string): Promise<Json> {
  const r = await raw('GET', path);
  if (r.status !== 200) throw new Error(`GET ${path}: ${r.status} ${r.text}`);
  return r.json!;
}

/** Objects of a stored row: n in each namespace (the twin tells a swapped namespace), del and doomed. */
async function ensureObjects(def: ResourceDef, names: Names, index: number): Promise<void> {
  if (def.virtual) return;
  if (isNamespaceKind(def)) {
    for (const [name, labels] of [[names.del, {}], [names.doomed, { doomed: `${index}` }]] as const) {
      await raw('POST', '/api/v1/namespaces', { metadata: { name, labels } });
    }
    return settle();
  }
  const base = gvPath(def.group, def.version);
  for (const ns of def.namespaced ? [A, B] : ['']) {
    const coll = ns ? `${base}/namespaces/${ns}/${def.plural}` : `${base}/${def.plural}`;
    for (const [name, doomed] of [[names.n, false], [names.del, false], [names.doomed, true]] as const) {
      const body = bodyFor(def.kind, name, ns, def.group, 'table');
      if (doomed) (body.metadata as Json).labels = { suite: 'table', doomed: `${index}` };
      const r = await raw('POST', coll, body);
      if (r.status !== 201) throw new Error(`setup ${coll} ${name}: ${r.status} ${r.text}`);
    }
  }
  await settle();
}

const subBodies: Record<string, (def: ResourceDef, ns: string, name: string) => unknown> = {
  scale: (_d, ns, name) => ({ kind: 'Scale', metadata: { name, namespace: ns || undefined }, spec: { replicas: 3 } }),
  binding: (_d, _ns, name) => ({ kind: 'Binding', metadata: { name }, target: { kind: 'Node', name: 'node-1' } }),
  rollback: (_d, _ns, name) => ({ kind: 'DeploymentRollback', name, rollbackTo: { revision: 0 } }),
  finalize: (_d, _ns, name) => ({ kind: 'Namespace', metadata: { name }, spec: { finalizers: ['platform'] } }),
  token: (_d, ns, name) => ({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', metadata: { name, namespace: ns }, spec: {} }),
};

const subVerb: Record<string, string> = { GET: 'get', PUT: 'update', PATCH: 'patch', POST: 'create' };

/** The request bodies virtual kinds are created with (a pod to bind, a review to evaluate). */
function virtualCreateBody(def: ResourceDef, ns: string): { body: unknown; reviewNamespace?: string; writes?: boolean } | undefined {
  const ra = { namespace: ns || A, verb: 'get', resource: 'pods' };
  switch (def.kind) {
    case 'Binding': return { body: { kind: 'Binding', metadata: { name: 'bindme' }, target: { kind: 'Node', name: 'node-1' } }, writes: true };
    case 'TokenReview': return { body: { spec: { token: 'not-a-token' } } };
    case 'SubjectAccessReview': return { body: { spec: { user: 'u', resourceAttributes: ra } }, reviewNamespace: A };
    case 'SelfSubjectAccessReview': return { body: { spec: { resourceAttributes: ra } }, reviewNamespace: A };
    case 'LocalSubjectAccessReview': return { body: { spec: { user: 'u', resourceAttributes: ra } }, reviewNamespace: ns };
    case 'SelfSubjectRulesReview': return { body: { spec: { namespace: A } } };
    case 'SelfSubjectReview': return { body: {} };
    default: return undefined;
  }
}

async function casesOf(def: ResourceDef, index: number): Promise<Case[]> {
  const names = namesOf(def, index);
  await ensureObjects(def, names, index);
  const base = gvPath(def.group, def.version);
  const ns = def.namespaced ? A : '';
  const coll = def.namespaced ? `${base}/namespaces/${A}/${def.plural}` : `${base}/${def.plural}`;
  const watchColl = def.namespaced ? `${base}/watch/namespaces/${A}/${def.plural}` : `${base}/watch/${def.plural}`;
  const item = isNamespaceKind(def) ? `/api/v1/namespaces/${A}` : `${coll}/${names.n}`;
  const stored = !def.virtual;
  const cases: Case[] = [];
  const add = (c: Case) => cases.push(c);

  // the collection: list, both watch forms, create, deletecollection
  add({ form: 'list', method: 'GET', path: coll, status: opStatus(def, 'list', 200) });
  add({ form: 'watch (?watch=true)', method: 'GET', path: `${coll}?watch=true&resourceVersion=0`, status: opStatus(def, 'watch', 200) });
  add({ form: 'watch (/watch/ prefix)', method: 'GET', path: `${watchColl}?resourceVersion=0`, status: opStatus(def, 'watch', 200) });
  const virtualCreate = virtualCreateBody(def, ns);
  if (stored) add({ form: 'create', method: 'POST', path: coll, body: bodyFor(def.kind, names.created, ns, def.group, 'table'), status: 201, writes: true });
  else add({ form: 'create', method: 'POST', path: coll, body: virtualCreate?.body ?? {}, status: opStatus(def, 'create', 201), writes: virtualCreate?.writes, reviewNamespace: virtualCreate?.reviewNamespace });
  if (stored) add({ form: 'deletecollection', method: 'DELETE', path: `${coll}?labelSelector=doomed%3D${index}`, status: 200, writes: true });
  else add({ form: 'deletecollection', method: 'DELETE', path: coll, status: 405 });

  // the item: get (also with ?watch=true, which names an item: a get), watch, update, patch, delete
  if (names.n) {
    add({ form: 'get', method: 'GET', path: item, status: opStatus(def, 'get', 200) });
    add({ form: 'get (?watch=true on an item)', method: 'GET', path: `${item}?watch=1`, status: opStatus(def, 'get', 200) });
    const watchItem = isNamespaceKind(def) ? `/api/v1/watch/namespaces/${A}` : `${watchColl}/${names.n}`;
    add({ form: 'watch item (/watch/ prefix)', method: 'GET', path: `${watchItem}?resourceVersion=0`, status: opStatus(def, 'watch', 200) });
    // the trailing slash and a fully percent-encoded name name the same object
    const encoded = [...names.n].map((ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`).join('');
    add({ form: 'get, trailing slash', method: 'GET', path: `${item}/`, status: opStatus(def, 'get', 200) });
    if (!isNamespaceKind(def)) add({ form: 'get, percent-encoded name', method: 'GET', path: `${coll}/${encoded}`, status: opStatus(def, 'get', 200) });
  }
  if (stored) {
    // no resourceVersion in the bodies: each case writes on whatever the ones before left
    const current = await get(item);
    current.metadata.resourceVersion = undefined;
    add({ form: 'update', method: 'PUT', path: item, body: { ...current, metadata: { ...current.metadata, labels: { ...current.metadata.labels, put: 'yes' } } }, status: 200, writes: true });
    add({ form: 'patch', method: 'PATCH', path: item, body: { metadata: { labels: { patched: 'yes' } } }, contentType: MERGE, status: 200, writes: true });
    if (def.namespaced) {
      // a namespace in the body that is not the path's is refused, not followed
      add({ form: 'create, body in another namespace', method: 'POST', path: coll, body: { ...bodyFor(def.kind, 'moved', B, def.group, 'table'), metadata: { name: 'moved', namespace: B } }, status: 400 });
      add({ form: 'update, body in another namespace', method: 'PUT', path: item, body: { ...current, metadata: { ...current.metadata, namespace: B } }, status: 400 });
      add({ form: 'patch moving the namespace', method: 'PATCH', path: item, body: { metadata: { namespace: B } }, contentType: MERGE, status: 400 });
    }
  } else {
    add({ form: 'update', method: 'PUT', path: item, body: {}, status: opStatus(def, 'update', 200) });
    add({ form: 'delete', method: 'DELETE', path: item, status: opStatus(def, 'delete', 200) });
  }
  if (def.kind === 'Binding') {
    add({ form: 'create, body in another namespace', method: 'POST', path: coll, body: { metadata: { name: 'bindme', namespace: B }, target: { name: 'node-1' } }, status: 400 });
  }
  if (def.kind === 'LocalSubjectAccessReview') {
    add({ form: 'create, review of another namespace', method: 'POST', path: coll, body: { spec: { user: 'u', resourceAttributes: { namespace: B, verb: 'get', resource: 'pods' } } }, status: 400 });
  }

  // every subresource, by every method
  for (const sub of def.subresources) {
    // log, exec, attach, portforward and proxy reach a kubelet or backend: test/integration/kubelet-subresources.test.ts
    if (STREAMING_SUBRESOURCES.has(sub.name)) continue;
    const subPath = `${item}/${sub.name}`;
    const current = sub.name === 'status' ? await get(subPath) : undefined;
    if (current) current.metadata.resourceVersion = undefined;
    for (const method of ['GET', 'PUT', 'PATCH', 'POST']) {
      const verb = subVerb[method];
      const body = sub.name === 'status' ? current : method === 'PATCH' ? { spec: { replicas: 5 } } : subBodies[sub.name]?.(def, ns, names.n);
      const ok = method === 'POST' ? 201 : 200;
      add({
        form: `${sub.name} ${verb}`,
        method,
        path: subPath,
        body: method === 'GET' ? undefined : body,
        contentType: method === 'PATCH' ? MERGE : undefined,
        status: sub.verbs.includes(verb as never) ? ok : 405,
        // a token is signed, not stored
        writes: sub.name !== 'status' && sub.name !== 'finalize' && sub.name !== 'token' && method !== 'GET' && sub.verbs.includes(verb as never),
      });
    }
    if (sub.name === 'scale' || sub.name === 'binding') {
      const body = subBodies[sub.name](def, ns, 'someone-else');
      add({ form: `${sub.name}, body naming another object`, method: sub.name === 'scale' ? 'PUT' : 'POST', path: subPath, body, status: 400 });
    }
    if (sub.name === 'token') {
      // the reference's answer to a TokenRequest naming another account is a 422
      add({ form: 'token, body naming another account', method: 'POST', path: subPath, body: subBodies.token(def, ns, 'someone-else'), status: 422 });
    }
  }
  if (stored) {
    const delPath = isNamespaceKind(def) ? `/api/v1/namespaces/${names.del}` : `${coll}/${names.del}`;
    add({ form: 'delete', method: 'DELETE', path: delPath, status: 200, writes: true });
  }

  // malformed paths name nothing: authorized as the raw path they are, then a 400
  const n = names.n || 'x';
  for (const bad of [`${coll}//${n}`, `${coll}/./${n}`, `${coll}/${n}/..`, `${coll}/%2E%2E`, `${coll}/${n}%2Fstatus`, `${coll}/%zz`, `${base}/namespaces/${A}%2F..%2F${B}/${def.plural}/${n}`]) {
    add({ form: 'malformed', method: 'GET', path: bad, status: 400, nonResource: true });
  }
  add({ form: 'malformed delete', method: 'DELETE', path: `${coll}//${n}`, status: 400, nonResource: true });

  if (def.namespaced) {
    // the all-namespaces path: a collection to list and watch, nothing else
    const all = `${base}/${def.plural}`;
    add({ form: 'all namespaces: list', method: 'GET', path: all, status: opStatus(def, 'list', 200) });
    add({ form: 'all namespaces: watch', method: 'GET', path: `${base}/watch/${def.plural}?resourceVersion=0`, status: opStatus(def, 'watch', 200) });
    add({ form: 'all namespaces: create', method: 'POST', path: all, body: stored ? bodyFor(def.kind, 'nowhere', '', def.group, 'table') : (virtualCreate?.body ?? {}), status: 405 });
    add({ form: 'all namespaces: deletecollection', method: 'DELETE', path: all, status: 405 });
    for (const [method, body] of [['GET'], ['PUT', {}], ['PATCH', {}], ['DELETE']] as const) {
      add({ form: `all namespaces: item ${method}`, method, path: `${all}/${n}`, body, contentType: method === 'PATCH' ? MERGE : undefined, status: 404 });
    }
    for (const sub of def.subresources) add({ form: `all namespaces: ${sub.name}`, method: 'GET', path: `${all}/${n}/${sub.name}`, status: 404 });
  } else {
    // a cluster-scoped kind under /namespaces/<ns>/ is no route at all (the attack for namespaces)
    const under = `${base}/namespaces/${A}/${def.plural}`;
    const other = isNamespaceKind(def) ? B : n;
    const forms: Array<[string, string, unknown?]> = [
      ['GET', under], ['GET', `${under}?watch=true&resourceVersion=0`], ['GET', `${base}/watch/namespaces/${A}/${def.plural}?resourceVersion=0`],
      ['GET', `${base}/watch/namespaces/${A}/${def.plural}/${other}?resourceVersion=0`],
      ['POST', under, { metadata: { name: 'evil' } }], ['DELETE', under],
      ['GET', `${under}/${other}`], ['PUT', `${under}/${other}`, { metadata: { name: other } }], ['PATCH', `${under}/${other}`, { metadata: { labels: { evil: 'yes' } } }],
      ['DELETE', `${under}/${other}`],
    ];
    for (const sub of def.subresources) for (const m of ['GET', 'PUT', 'PATCH', 'POST']) forms.push([m, `${under}/${other}/${sub.name}`, m === 'GET' ? undefined : { metadata: { name: other }, spec: { finalizers: [] } }]);
    for (const [method, path, body] of forms) add({ form: 'cluster-scoped under /namespaces/a/', method, path, body, contentType: method === 'PATCH' ? MERGE : undefined, status: 404 });
  }
  return cases;
}

test.before(async () => {
  server = await createServer(
    { insecurePort: 0, authorizationMode: ['Webhook'], runtimeConfig: ['api/all=true'] },
    { authorizers: { Webhook: recorder }, log: () => {} },
  );
  port = Number(new URL(server.insecureUrl!).port);
  for (const ns of [A, B]) {
    const r = await raw('POST', '/api/v1/namespaces', { metadata: { name: ns } });
    if (r.status !== 201) throw new Error(`namespace ${ns}: ${r.status} ${r.text}`);
  }
  // pods for the Binding row, one per namespace: a bound pod in the wrong namespace would show
  for (const ns of [A, B]) await raw('POST', `/api/v1/namespaces/${ns}/pods`, bodyFor('Pod', 'bindme', ns));
  // the service-account controller writes each new namespace's default account: let it finish first
  for (let i = 0; i < 200 && !(server.store.get({ group: '', resource: 'serviceaccounts', namespace: B, name: 'default' }) && server.store.get({ group: '', resource: 'serviceaccounts', namespace: A, name: 'default' })); i++) {
    await new Promise((r) => setTimeout(r, 25));
  }
});
test.after.always(() => server?.close());

/** One request written by hand, for what an HTTP client will not send (a bad Host header). */
function handWritten(head: string): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const c = net.connect(port, '127.0.0.1', () => c.end(`${head}\r\nConnection: close\r\n\r\n`));
    let text = '';
    c.on('data', (d: Buffer) => (text += d.toString()));
    c.on('error', reject);
    c.on('close', () => {
      const body = text.slice(text.indexOf('\r\n\r\n') + 4);
      let json: Json | undefined;
      try { json = JSON.parse(body) as Json; } catch { json = undefined; }
      resolve({ status: Number(text.split(' ')[1]), text, json });
    });
  });
}

test.serial('the request line alone decides: a bad Host header, an absolute URL, a path in other case', async (t) => {
  for (const host of ['a b', '[']) {
    records.length = 0;
    const r = await handWritten(`GET /api/v1/namespaces/${A}/pods?watch=false&pretty=true HTTP/1.1\r\nHost: ${host}`);
    t.is(r.status, 200, r.text);
    t.is(r.json?.kind, 'PodList');
    t.deepEqual([records[0]?.verb, records[0]?.namespace, records[0]?.resource], ['list', A, 'pods']);
  }
  records.length = 0;
  const abs = await handWritten(`GET http://elsewhere/api/v1/namespaces/${A} HTTP/1.1\r\nHost: x`);
  t.is(abs.status, 200);
  t.is(abs.json?.metadata?.name, A);
  t.deepEqual([records[0]?.namespace, records[0]?.name], [A, A]);
  // the authorizer compares paths exactly; the router must too
  records.length = 0;
  const upper = await raw('GET', '/HEALTHZ');
  t.is(upper.status, 404);
  t.is(upper.json?.reason, 'NotFound');
  t.deepEqual([records[0]?.isResourceRequest, records[0]?.path], [false, '/HEALTHZ']);
});

const rows = resources.map((def, index) => ({ def, index }));

test('the table covers every catalogue row, every group on', (t) => {
  // the build's rows (the ThirdPartyResource fixtures add custom kinds to the live catalogue)
  t.is(server.catalogue.resources.filter((r) => resources.includes(r)).length, resources.length);
  t.is(rows.length, resources.length);
});

for (const { def, index } of rows) {
  test.serial(`${def.group || 'core'}/${def.version} ${def.plural}: what is authorized is what is touched`, async (t) => {
    const cases = await casesOf(def, index);
    t.true(cases.length > 10);
    for (const c of cases) await check(t, def, c);
  });
}
