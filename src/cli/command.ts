// What every command shares around the one flag parser: --help generated from the command's table,
// usage errors answered with exit code 2, required flags and the number of positionals checked.
import { FlagError, formatFlags, parseFlags, wantsHelp, type FlagDef, type FlagValues } from '../config/flag-table.ts';

export interface CommandSpec<T extends readonly FlagDef[], D extends FlagValues<T>> {
  /** Synopsis lines, e.g. `portcullis who-can VERB RESOURCE [NAME] [flags]`. */
  readonly usage: readonly string[];
  /** A paragraph after the synopsis. */
  readonly about?: string;
  readonly flags: T;
  /** Values of flags left out (shown in --help). */
  readonly defaults?: D;
  /** Keys of flags that must be given. */
  readonly required?: readonly T[number]['key'][];
  /** How many positionals: [least, most]. */
  readonly positionals?: readonly [number, number];
}

export interface CommandLine<T extends readonly FlagDef[], D> {
  /** The given flags; those with a default are always present. */
  values: FlagValues<T> & Required<Pick<FlagValues<T>, keyof D & keyof FlagValues<T>>>;
  positionals: string[];
}

export function commandHelp(spec: CommandSpec<readonly FlagDef[], object>): string {
  const lines = spec.usage.map((u, i) => `${i === 0 ? 'usage: ' : '       '}${u}`);
  if (spec.about) lines.push('', spec.about);
  if (spec.flags.length) lines.push('', 'Flags:', ...formatFlags(spec.flags, spec.defaults ?? {}));
  return lines.join('\n');
}

/** The synopsis alone, for usage errors. */
function usageLines(spec: CommandSpec<readonly FlagDef[], object>): string {
  return spec.usage.map((u, i) => `${i === 0 ? 'usage: ' : '       '}${u}`).join('\n');
}

/**
 * Parse a command line, or answer it: `--help` prints the help (exit 0), a usage error prints the
 * message and the synopsis to stderr (exit 2). A number is the exit code to return.
 */
export function parseCommand<const T extends readonly FlagDef[], const D extends FlagValues<T> = FlagValues<T>>(
  spec: CommandSpec<T, D>,
  argv: readonly string[],
): CommandLine<T, D> | number {
  if (wantsHelp(argv)) {
    process.stdout.write(`${commandHelp(spec)}\n`);
    return 0;
  }
  try {
    const [least, most] = spec.positionals ?? [0, 0];
    const { values, positionals } = parseFlags(spec.flags, argv, most > 0);
    const given = values as Record<string, unknown>;
    const missing = (spec.required ?? []).find((key) => given[key] === undefined);
    if (missing !== undefined) throw new FlagError(`flag --${spec.flags.find((f) => f.key === missing)!.name} is required`);
    if (positionals.length < least || positionals.length > most) throw new FlagError(positionals.length < least ? 'missing arguments' : 'too many arguments');
    return { values: { ...spec.defaults, ...values } as CommandLine<T, D>['values'], positionals };
  } catch (e) {
    if (!(e instanceof FlagError)) throw e;
    process.stderr.write(`error: ${e.message}\n${usageLines(spec)}\n`);
    return 2;
  }
}

export interface Subcommand {
  readonly spec: CommandSpec<readonly FlagDef[], object>;
  run(argv: string[]): Promise<number>;
}

/**
 * `portcullis <command> <subcommand> ...`: help lists every subcommand's, an unknown or missing
 * subcommand is a usage error, and an error thrown by a subcommand is printed with exit code 2.
 */
export async function runSubcommand(argv: readonly string[], subcommands: Readonly<Record<string, Subcommand>>): Promise<number> {
  const [name, ...rest] = argv;
  const all = Object.values(subcommands);
  if (name === '--help' || name === '-h') {
    process.stdout.write(`${all.map((s) => commandHelp(s.spec)).join('\n\n')}\n`);
    return 0;
  }
  const sub = name !== undefined && Object.prototype.hasOwnProperty.call(subcommands, name) ? subcommands[name] : undefined;
  if (!sub) {
    process.stderr.write(`${name ? `unknown subcommand ${name}` : 'a subcommand is required'}\n${all.map((s) => usageLines(s.spec)).join('\n')}\n`);
    return 2;
  }
  try {
    return await sub.run(rest);
  } catch (e) {
    process.stderr.write(`error: ${(e as Error).message}\n`);
    return 2;
  }
}
