// One flag parser for every command. A command (or an options concern) declares its flags in a table;
// the same table drives parsing, the form check of each value, and --help, so they never disagree.
// This module imports nothing: `portcullis can-i --help` pays for this file and its own.

/**
 * - int: a non-negative integer
 * - string: one value; given twice, the last wins
 * - bool: `--flag`, `--flag=true`, `--flag=false`
 * - list: comma-separated, accumulating over repeats (`--authorization-mode=ABAC,RBAC`)
 * - repeated: one value per occurrence, no comma split (`--as-group a --as-group b`)
 */
export type FlagType = 'int' | 'string' | 'bool' | 'list' | 'repeated';

export interface FlagDef<K extends string = string> {
  /** Long name without dashes: `secure-port`. */
  readonly name: string;
  /** Where the value lands in the parsed object. */
  readonly key: K;
  readonly type: FlagType;
  readonly help: string;
  /** One-letter alias: `-n`. */
  readonly short?: string;
  /** Placeholder shown in --help (`FILE`); the type's name when absent. */
  readonly value?: string;
  /** The only values accepted (checked at parse time, named in --help). */
  readonly choices?: readonly string[];
  /** Largest int accepted (ports: 65535). */
  readonly max?: number;
}

type ValueOf<D> = D extends { type: 'int' } ? number
  : D extends { type: 'bool' } ? boolean
  : D extends { type: 'list' | 'repeated' } ? string[]
  : D extends { choices: readonly (infer C)[] } ? C
  : string;

/** The parsed values of a table declared `as const`: a key is present only when its flag was given. */
export type FlagValues<T extends readonly FlagDef[]> = { [D in T[number] as D['key']]?: ValueOf<D> };

/** A bad command line: the message names the flag; commands answer it with exit code 2. */
export class FlagError extends Error {}

export interface Parsed<T extends readonly FlagDef[]> {
  values: FlagValues<T>;
  positionals: string[];
}

/** True when `-h`/`--help` appears before any `--`: help wins over every other argument. */
export function wantsHelp(argv: readonly string[]): boolean {
  for (const arg of argv) {
    if (arg === '--') return false;
    if (arg === '--help' || arg === '-h') return true;
  }
  return false;
}

/**
 * Parse `--flag=value`, `--flag value`, `-f value`, `-fvalue`, bare and `=true|false` booleans and
 * grouped short booleans (`-Av`); everything after `--` is positional. Unknown flags, missing values
 * and malformed values throw FlagError naming the flag.
 */
export function parseFlags<const T extends readonly FlagDef[]>(table: T, argv: readonly string[], allowPositionals = false): Parsed<T> {
  const out: Record<string, unknown> = Object.create(null);
  const positionals: string[] = [];
  const positional = (arg: string) => {
    if (!allowPositionals) throw new FlagError(`unexpected argument ${JSON.stringify(arg)}`);
    positionals.push(arg);
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const next = (def: FlagDef): string => {
      if (i + 1 >= argv.length) throw new FlagError(`flag ${flagName(def)} needs a value`);
      return argv[++i];
    };
    if (arg === '--') {
      for (const rest of argv.slice(i + 1)) positional(rest);
      break;
    }
    if (arg.startsWith('--')) {
      const eq = arg.indexOf('=');
      const name = arg.slice(2, eq < 0 ? undefined : eq);
      const def = table.find((f) => f.name === name);
      if (!def) throw new FlagError(`unknown flag --${name}`);
      const inline = eq < 0 ? undefined : arg.slice(eq + 1);
      store(out, def, def.type === 'bool' ? inline : inline ?? next(def));
    } else if (arg.length > 1 && arg.startsWith('-')) {
      // -n ns, -nns, -A, -Av
      for (let j = 1; j < arg.length; j++) {
        const def = table.find((f) => f.short === arg[j]);
        if (!def) throw new FlagError(`unknown flag -${arg[j]}`);
        if (def.type === 'bool') {
          store(out, def, undefined);
          continue;
        }
        store(out, def, j + 1 < arg.length ? arg.slice(j + 1) : next(def));
        break;
      }
    } else positional(arg);
  }
  return { values: out as FlagValues<T>, positionals };
}

function store(out: Record<string, unknown>, def: FlagDef, raw: string | undefined): void {
  switch (def.type) {
    case 'int': {
      if (!/^\d+$/.test(raw!)) throw new FlagError(`flag ${flagName(def)}: ${JSON.stringify(raw)} is not a non-negative integer`);
      const n = Number(raw);
      if (def.max !== undefined && n > def.max) throw new FlagError(`flag ${flagName(def)}: ${n} is more than ${def.max}`);
      out[def.key] = n;
      return;
    }
    case 'bool': {
      const v = raw ?? 'true';
      if (v !== 'true' && v !== 'false') throw new FlagError(`flag ${flagName(def)}: expected true or false`);
      out[def.key] = v === 'true';
      return;
    }
    case 'list':
    case 'repeated': {
      const items = def.type === 'list' ? raw!.split(',').map((s) => s.trim()).filter(Boolean) : [raw!];
      for (const item of items) checkChoice(def, item);
      out[def.key] = [...((out[def.key] as string[] | undefined) ?? []), ...items];
      return;
    }
    default:
      checkChoice(def, raw!);
      out[def.key] = raw;
  }
}

function checkChoice(def: FlagDef, value: string): void {
  if (def.choices && !def.choices.includes(value)) {
    throw new FlagError(`flag ${flagName(def)}: ${JSON.stringify(value)} is not one of ${def.choices.join(', ')}`);
  }
}

function flagName(def: FlagDef): string {
  return `--${def.name}`;
}

/** Help for a table: one line per flag, with its accepted values and its default (from `defaults`, by key). */
export function formatFlags(table: readonly FlagDef[], defaults: object = {}): string[] {
  return table.map((f) => {
    const placeholder = f.type === 'bool' ? '[=true|false]' : `=${f.value ?? (f.choices ? f.choices.join('|') : f.type === 'int' ? 'INT' : 'STRING')}`;
    const head = `  ${f.short ? `-${f.short}, ` : '    '}--${f.name}${placeholder}${f.type === 'list' ? '[,...]' : f.type === 'repeated' ? ' (repeatable)' : ''}`;
    const d = Object.prototype.hasOwnProperty.call(defaults, f.key) ? defaultText((defaults as Record<string, unknown>)[f.key]) : '';
    const text = d ? `${f.help} (default ${d})` : f.help;
    return head.length < 48 ? head.padEnd(48) + text : `${head}\n${' '.repeat(48)}${text}`;
  });
}

function defaultText(v: unknown): string {
  if (v === undefined || v === '' || (Array.isArray(v) && v.length === 0)) return '';
  return Array.isArray(v) ? v.join(',') : String(v);
}
