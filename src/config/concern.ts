import type { FlagDef } from './flag-table.ts';

/**
 * One concern of the server's options (serving, authentication, authorization, storage, API): its
 * typed options, the flags that set them, their library defaults and the checks a value must pass.
 */
export interface Concern<T extends object> {
  /** Heading of this concern's flags in `serve --help`. */
  readonly title: string;
  readonly flags: readonly FlagDef<keyof T & string>[];
  /** The library defaults: what `createServer` uses for an option nobody set. */
  defaults(): T;
  /** Throws a FlagError naming the flag when a value cannot work. */
  validate(options: T): void;
}

/**
 * The builder every concern shares: the flags this concern declares, where given, over `base` (a
 * profile's values; other concerns' options in it pass through), then the concern's checks.
 */
export function buildConcern<T extends object, B extends T = T>(concern: Concern<T>, flags: Partial<T>, base: B): B {
  const options: B = { ...base };
  for (const def of concern.flags) {
    const value = flags[def.key];
    if (value !== undefined) (options as T)[def.key] = value as T[keyof T & string];
  }
  concern.validate(options);
  return options;
}
