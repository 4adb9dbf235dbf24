// An authorizer rebuilt when its policy files change. The swap is one assignment, so a request sees
// the old policy or the new one, never a mix; a file that fails to load keeps the last good policy.
import { watch, type FSWatcher } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import type { UserInfo } from '../authn/types.ts';
import type { Authorizer, AuthzAttributes, Decision } from '../authz/types.ts';
import type { LoadedPolicy } from './policy.ts';

export interface ReloadingAuthorizer extends Authorizer {
  /** Load now; resolves true when the new policy is in place. */
  reload(): Promise<boolean>;
  /** Stop watching. */
  close(): void;
  /** How many successful loads (the first included). */
  readonly generation: number;
  /** The policy in force: its revision, and its explainer when it has one. */
  readonly current: LoadedPolicy;
}

/**
 * Watches each file's directory (an editor or a ConfigMap replaces files by rename, which a watch on
 * the file itself misses) and reloads after a short quiet period.
 */
export async function reloadingAuthorizer(
  files: readonly string[],
  load: () => Promise<LoadedPolicy>,
  log: (msg: string) => void,
  quietMs = 100,
): Promise<ReloadingAuthorizer> {
  let current = await load();
  let generation = 1;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<boolean> | undefined;
  const watchers: FSWatcher[] = [];

  const reload = (): Promise<boolean> => {
    // one load at a time; a change during a load is picked up by the next timer
    running ??= load().then(
      (a) => {
        current = a;
        generation++;
        log('portcullis proxy: policy reloaded');
        return true;
      },
      (e: unknown) => {
        log(`portcullis proxy: policy reload failed, keeping the last good policy: ${e instanceof Error ? e.message : String(e)}`);
        return false;
      },
    ).finally(() => { running = undefined; });
    return running;
  };

  const byDir = new Map<string, Set<string>>();
  for (const f of files) {
    const abs = resolve(f);
    const set = byDir.get(dirname(abs)) ?? new Set<string>();
    set.add(basename(abs));
    byDir.set(dirname(abs), set);
  }
  for (const [dir, names] of byDir) {
    const w = watch(dir, { persistent: false }, (_event, name) => {
      // a directory given as a policy source: any change in it counts
      if (name !== null && !names.has(name.toString()) && !files.some((f) => resolve(f) === dir)) return;
      clearTimeout(timer);
      timer = setTimeout(() => void reload(), quietMs);
    });
    w.on('error', (e) => log(`portcullis proxy: watching ${dir} failed: ${e.message}`));
    watchers.push(w);
  }
  // a directory source: watch inside it too
  for (const f of files) {
    try {
      const w = watch(resolve(f), { persistent: false }, () => {
        clearTimeout(timer);
        timer = setTimeout(() => void reload(), quietMs);
      });
      w.on('error', () => w.close());
      watchers.push(w);
    } catch {
      // the file may be briefly absent during a replace; its directory's watch covers it
    }
  }

  return {
    name: 'reloading',
    get generation() { return generation; },
    get current() { return current; },
    authorize(user: UserInfo, attrs: AuthzAttributes): Promise<Decision> | Decision {
      return current.authorizer.authorize(user, attrs);
    },
    reload,
    close() {
      clearTimeout(timer);
      for (const w of watchers) w.close();
    },
  };
}
