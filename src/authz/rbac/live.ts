// Live RBAC state for the server: the four kinds as the event source (the store) holds them, compiled
// incrementally. Every applied batch becomes a few data patches, applied synchronously to the engine
// (and to a JS mirror used for rule resolution) before the write's response is sent: read-your-writes.
import type { RbacEventSource, RbacObjectEvent } from './source.ts';
import { RbacCompiler } from '../../policy/rbac.ts';
import { toData, type CompiledPolicy, type DataPatch } from '../../policy/format.ts';
import { PolicyEvaluator } from '../../policy/evaluator.ts';
import { PolicyAuthorizer } from '../policy-authorizer.ts';
import { RbacAuthorizer } from './authorizer.ts';
import { addObject, emptyObjects, isBindingKind, isClusterKind, kindOfResource, RBAC_GROUP, RBAC_RESOURCES, toBindingObject, toRoleObject, type RbacKind } from './objects.ts';
import { applyPatches } from './rules.ts';

export class LiveRbac {
  private readonly compiler: RbacCompiler;
  /** Equal to the engine's data at all times (same patches). */
  readonly policy: CompiledPolicy;
  private engine: PolicyAuthorizer | undefined;
  authorizer: RbacAuthorizer | undefined;
  private readonly unsubscribe: () => void;

  private constructor(source: RbacEventSource) {
    // list and subscribe in the same synchronous step: no event can fall between them
    const objects = emptyObjects();
    for (const kind of Object.keys(RBAC_RESOURCES) as RbacKind[]) {
      for (const o of source.list(RBAC_GROUP, RBAC_RESOURCES[kind]).items) addObject(objects, kind, o);
    }
    this.compiler = new RbacCompiler(objects);
    this.policy = this.compiler.compile();
    this.unsubscribe = source.subscribe((events) => this.apply(events));
  }

  /** Loads the engine; events arriving meanwhile are compiled and folded in before it goes live. */
  static async open(source: RbacEventSource, superUser?: string): Promise<LiveRbac> {
    const live = new LiveRbac(source);
    const ev = await PolicyEvaluator.engine(toData({ version: 1, scopes: {}, roles: {} }));
    ev.setData(toData(live.policy));
    live.engine = new PolicyAuthorizer('RBAC', ev);
    live.authorizer = new RbacAuthorizer(live.engine, superUser, live.policy);
    return live;
  }

  /** Events of the four kinds → compiler changes → one patch call. */
  apply(events: readonly RbacObjectEvent[]): void {
    const patches: DataPatch[] = [];
    for (const e of events) {
      if (e.key.group !== RBAC_GROUP) continue;
      const kind = kindOfResource(e.key.resource);
      if (!kind) continue;
      patches.push(...this.change(kind, e));
    }
    if (!patches.length) return;
    applyPatches(this.policy, patches);
    if (!this.engine) return; // still loading: open() sets the full data once loaded
    // the mirror is the full data: when the engine refuses a patch, or its heap is due for a
    // rebuild, it loads from the mirror, with no recompile of the world
    this.engine.patch(patches, () => this.policy);
  }

  private change(kind: RbacKind, e: RbacObjectEvent): DataPatch[] {
    const cluster = isClusterKind(kind);
    const meta = { name: e.key.name, namespace: e.key.namespace || undefined };
    if (isBindingKind(kind)) {
      return e.type === 'DELETED' ? this.compiler.removeBinding(meta, cluster) : this.compiler.upsertBinding(toBindingObject(e.object), cluster);
    }
    return e.type === 'DELETED' ? this.compiler.removeRole(meta, cluster) : this.compiler.upsertRole(toRoleObject(e.object), cluster);
  }

  /** Settles once the engine's rebuild under way (if any) is in force (tests, benchmarks). */
  get rebuilding(): Promise<void> | undefined {
    return this.engine?.rebuilding;
  }

  /** Resolution errors the compiler met (bad role refs, subjects without namespace). */
  get errors(): readonly string[] {
    return this.compiler.errors;
  }

  close(): void {
    this.unsubscribe();
  }
}
