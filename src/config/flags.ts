// The serve command's flags: the concerns' tables, parsed by the one flag parser every command uses.
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { FlagError, formatFlags, parseFlags, type FlagDef } from './flag-table.ts';
import { serverConcerns, type ServerOptions } from './options.ts';

export { FlagError };

export const serveFlags: readonly FlagDef<keyof ServerOptions & string>[] = serverConcerns.flatMap((c): readonly FlagDef<keyof ServerOptions & string>[] => c.flags);

/** Parse serve's flags into the options they set (nothing else: defaults come from a profile). */
export function parseServeFlags(argv: readonly string[]): Partial<ServerOptions> {
  // the table's types (int → number, bool → boolean, list → string[]) are those of ServerOptions
  return parseFlags(serveFlags, argv).values as Partial<ServerOptions>;
}

/** The largest --config file read (a flag file, not a data set). */
const CONFIG_MAX_BYTES = 1024 * 1024;

/**
 * serve's command line with `--config FILE`: the file (YAML, a map of flag names without dashes to
 * values) is read through the same flag table, so it accepts exactly the flags and values the command
 * line does; the command line's flags win over the file's.
 */
export function parseServeArgs(argv: readonly string[]): Partial<ServerOptions> {
  const rest: string[] = [];
  let file: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--') {
      rest.push(...argv.slice(i));
      break;
    }
    if (a === '--config') {
      if (i + 1 >= argv.length) throw new FlagError('flag --config needs a value');
      file = argv[++i];
    } else if (a.startsWith('--config=')) file = a.slice('--config='.length);
    else rest.push(a);
  }
  const flags = parseServeFlags(rest);
  return file === undefined ? flags : { ...parseServeFlags(configFileArgs(file)), ...flags };
}

/** The file's entries as command-line arguments (`--name=value`; lists one per item). */
export function configFileArgs(file: string): string[] {
  let text: string;
  try {
    const buf = readFileSync(file);
    if (buf.length > CONFIG_MAX_BYTES) throw new FlagError(`--config ${file}: larger than ${CONFIG_MAX_BYTES} bytes`);
    text = buf.toString('utf8');
  } catch (e) {
    if (e instanceof FlagError) throw e;
    throw new FlagError(`--config ${file}: ${e instanceof Error ? e.message : String(e)}`);
  }
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (e) {
    throw new FlagError(`--config ${file}: not YAML: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (doc === null || doc === undefined) return [];
  if (typeof doc !== 'object' || Array.isArray(doc)) throw new FlagError(`--config ${file}: expected a map of flag names to values`);
  const args: string[] = [];
  for (const [name, value] of Object.entries(doc)) {
    if (name === 'config') throw new FlagError(`--config ${file}: a config file cannot name another`);
    const values: unknown[] = Array.isArray(value) ? value : [value];
    for (const v of values) {
      if (typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean') {
        throw new FlagError(`--config ${file}: ${JSON.stringify(name)} must be a string, number, boolean or a list of them`);
      }
      // the table decides what the name and value may be (unknown names are FlagErrors there)
      args.push(`--${name}=${String(v)}`);
    }
  }
  return args;
}

/** `serve --help`: every concern's flags under its heading, with the defaults of the given profile. */
export function serveHelp(defaults: ServerOptions, notes: string[] = []): string {
  const lines = ['Usage: portcullis serve [flags]'];
  if (notes.length) lines.push('', ...notes);
  for (const concern of serverConcerns) lines.push('', `${concern.title} flags:`, ...formatFlags(concern.flags, defaults));
  return lines.join('\n');
}
