// The serve command's flags: the concerns' tables, parsed by the one flag parser every command uses.
import { FlagError, formatFlags, parseFlags, type FlagDef } from './flag-table.ts';
import { serverConcerns, type ServerOptions } from './options.ts';

export { FlagError };

export const serveFlags: readonly FlagDef<keyof ServerOptions & string>[] = serverConcerns.flatMap((c): readonly FlagDef<keyof ServerOptions & string>[] => c.flags);

/** Parse serve's flags into the options they set (nothing else: defaults come from a profile). */
export function parseServeFlags(argv: readonly string[]): Partial<ServerOptions> {
  // the table's types (int → number, bool → boolean, list → string[]) are those of ServerOptions
  return parseFlags(serveFlags, argv).values as Partial<ServerOptions>;
}

/** `serve --help`: every concern's flags under its heading, with the defaults of the given profile. */
export function serveHelp(defaults: ServerOptions, notes: string[] = []): string {
  const lines = ['Usage: portcullis serve [flags]'];
  if (notes.length) lines.push('', ...notes);
  for (const concern of serverConcerns) lines.push('', `${concern.title} flags:`, ...formatFlags(concern.flags, defaults));
  return lines.join('\n');
}
