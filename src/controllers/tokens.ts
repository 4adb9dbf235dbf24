// Tokens controller (api-machinery §8.2): every ServiceAccount has a token Secret it references; a
// token secret whose account (or account uid) is gone is deleted. Keyed by `<namespace>/<account>`:
// account events and token-secret events (through their account annotation) land on the same key, so
// one account's tokens are only ever worked on by one sync at a time.
import { randomInt } from 'node:crypto';
import type { ApiObject, JsonObject } from '../api/object.ts';
import { SA_NAME_ANNOTATION, SECRET_TYPE_SERVICE_ACCOUNT_TOKEN } from '../api/validation/config.ts';
import { SA_UID_ANNOTATION } from '../api/validation/config.ts';
import type { TokenIssuer } from '../authn/types.ts';
import type { StoreEvent } from '../store/backend.ts';
import type { Store } from '../store/store.ts';
import { coreDef, isStatus, storeKey, type Mutable, type SystemClient } from './client.ts';
import { KeyedQueue } from './queue.ts';
import { isActiveNamespace } from './service-accounts.ts';

const namespaces = coreDef('namespaces');
const serviceAccounts = coreDef('serviceaccounts');
const secrets = coreDef('secrets');

export interface TokensControllerDeps {
  store: Store;
  client: SystemClient;
  log: (msg: string) => void;
  issuer: TokenIssuer;
  /** PEM of the CA clients should trust, stored as `ca.crt` when known. */
  caCrt?: Buffer;
}

const nameAlphabet = 'bcdfghjklmnpqrstvwxz2456789';

function randomSuffix(): string {
  let s = '';
  for (let i = 0; i < 5; i++) s += nameAlphabet[randomInt(nameAlphabet.length)];
  return s;
}

function isTokenSecret(obj: ApiObject | undefined): obj is ApiObject {
  return obj?.type === SECRET_TYPE_SERVICE_ACCOUNT_TOKEN;
}

function secretRefs(sa: ApiObject): string[] {
  const list = Array.isArray(sa.secrets) ? sa.secrets : [];
  return list.map((r) => (r && typeof r === 'object' && !Array.isArray(r) && typeof r.name === 'string' ? r.name : '')).filter(Boolean);
}

export class TokensController {
  readonly queue: KeyedQueue;

  constructor(private readonly deps: TokensControllerDeps) {
    this.queue = new KeyedQueue({ name: 'tokens-controller', log: deps.log, sync: (key) => this.sync(key) });
  }

  static keyOf(namespace: string, account: string): string {
    return `${namespace}/${account}`;
  }

  start(): void {
    for (const sa of this.deps.store.list('', 'serviceaccounts').items) this.queue.enqueue(TokensController.keyOf(sa.metadata.namespace!, sa.metadata.name!));
    for (const s of this.deps.store.list('', 'secrets').items) this.enqueueSecret(s);
  }

  onEvents(events: readonly StoreEvent[]): void {
    for (const ev of events) {
      if (ev.key.group !== '') continue;
      if (ev.key.resource === 'serviceaccounts') this.queue.enqueue(TokensController.keyOf(ev.key.namespace, ev.key.name));
      else if (ev.key.resource === 'secrets') {
        this.enqueueSecret(ev.object);
        if (ev.prev) this.enqueueSecret(ev.prev);
      }
    }
  }

  private enqueueSecret(s: ApiObject): void {
    const account = s.metadata.annotations?.[SA_NAME_ANNOTATION];
    if (isTokenSecret(s) && account) this.queue.enqueue(TokensController.keyOf(s.metadata.namespace!, account));
  }

  private async sync(key: string): Promise<void> {
    const slash = key.indexOf('/');
    const namespace = key.slice(0, slash);
    const name = key.slice(slash + 1);
    const { store, client } = this.deps;
    const tokens = store
      .list('', 'secrets', namespace)
      .items.filter((s) => isTokenSecret(s) && s.metadata.annotations?.[SA_NAME_ANNOTATION] === name);
    const sa = store.get(storeKey(serviceAccounts, namespace, name));
    if (!sa) {
      // the account is gone: so are its tokens
      for (const s of tokens) await client.delete(secrets, namespace, s.metadata.name!);
      return;
    }
    const uid = sa.metadata.uid!;
    const mine: ApiObject[] = [];
    for (const s of tokens) {
      const owner = s.metadata.annotations?.[SA_UID_ANNOTATION];
      if (owner && owner !== uid) await client.delete(secrets, namespace, s.metadata.name!); // a former account's
      else if (!s.metadata.deletionTimestamp) mine.push(s);
    }
    const active = isActiveNamespace(store.get(storeKey(namespaces, '', namespace)));
    // complete tokens that lack data, the uid annotation, or a signature the current keys accept
    for (const s of mine) {
      if (active && !(await this.isComplete(s, uid))) await this.fillToken(s.metadata.name!, namespace, name, uid);
    }

    const refs = secretRefs(sa);
    // sets: the account's list is the caller's, as long as a body allows
    const refSet = new Set(refs);
    const dangling = new Set(refs.filter((r) => r.startsWith(`${name}-token-`) && !store.get(storeKey(secrets, namespace, r))));
    let referenced = mine.find((s) => refSet.has(s.metadata.name!))?.metadata.name;
    if (!referenced && active) referenced = mine[0]?.metadata.name ?? (await this.createToken(namespace, name, uid));
    if (!referenced && dangling.size === 0) return;
    const wanted = refs.filter((r) => !dangling.has(r));
    if (referenced && !wanted.includes(referenced)) wanted.push(referenced);
    if (wanted.length === refs.length && wanted.every((r, i) => r === refs[i])) return;
    try {
      await client.update(serviceAccounts, namespace, name, (current) => {
        if (current.metadata.uid !== uid) throw new Error(`service account ${key} was replaced`);
        const kept = (Array.isArray(current.secrets) ? current.secrets : []).filter(
          (r) => !(r && typeof r === 'object' && !Array.isArray(r) && typeof r.name === 'string' && dangling.has(r.name)),
        );
        if (referenced && !kept.some((r) => r && typeof r === 'object' && !Array.isArray(r) && r.name === referenced)) kept.push({ name: referenced });
        current.secrets = kept;
        return current;
      });
    } catch (e) {
      // the account went away meanwhile: its DELETED event brings us back to clean up
      if (!isStatus(e, 404)) throw e;
    }
  }

  private async isComplete(s: ApiObject, uid: string): Promise<boolean> {
    if (s.metadata.annotations?.[SA_UID_ANNOTATION] !== uid) return false;
    const data = (s.data ?? {}) as JsonObject;
    if (typeof data.token !== 'string' || typeof data.namespace !== 'string') return false;
    return this.deps.issuer.verifies(Buffer.from(data.token, 'base64').toString());
  }

  private async tokenData(namespace: string, name: string, uid: string, secretName: string): Promise<Record<string, string>> {
    const token = await this.deps.issuer.sign({ namespace, name, uid, secretName });
    const data: Record<string, string> = { token: Buffer.from(token).toString('base64'), namespace: Buffer.from(namespace).toString('base64') };
    if (this.deps.caCrt) data['ca.crt'] = this.deps.caCrt.toString('base64');
    return data;
  }

  private async createToken(namespace: string, name: string, uid: string): Promise<string | undefined> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const secretName = `${name}-token-${randomSuffix()}`;
      const body: Mutable = {
        metadata: { name: secretName, annotations: { [SA_NAME_ANNOTATION]: name, [SA_UID_ANNOTATION]: uid } },
        type: SECRET_TYPE_SERVICE_ACCOUNT_TOKEN,
        data: await this.tokenData(namespace, name, uid, secretName),
      };
      try {
        await this.deps.client.create(secrets, namespace, body);
        return secretName;
      } catch (e) {
        if (isStatus(e, 409) && attempt < 4) continue; // name taken: draw another
        if (isStatus(e, 403, 404)) return undefined; // the namespace is terminating or gone
        throw e;
      }
    }
    return undefined;
  }

  private async fillToken(secretName: string, namespace: string, name: string, uid: string): Promise<void> {
    const data = await this.tokenData(namespace, name, uid, secretName);
    try {
      await this.deps.client.update(secrets, namespace, secretName, (current) => {
        current.metadata.annotations = { ...current.metadata.annotations, [SA_NAME_ANNOTATION]: name, [SA_UID_ANNOTATION]: uid };
        current.data = { ...((current.data ?? {}) as JsonObject), ...data };
        return current;
      });
    } catch (e) {
      if (!isStatus(e, 404)) throw e;
    }
  }
}
