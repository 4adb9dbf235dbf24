// The CSV dialect of Go's encoding/csv as the static token and password files use it: comma
// separated, double-quote quoting with "" as an escaped quote, quoted fields may span lines,
// variable field counts, blank lines skipped, no trimming. A bare quote in an unquoted field or an
// unterminated quote is an error naming the line.
import type { UserInfo } from './types.ts';
import { AuthnConfigError } from './config-error.ts';

export interface CsvRow {
  /** 1-based line on which the record starts. */
  line: number;
  fields: string[];
}

export class CsvError extends Error {
  constructor(readonly line: number, message: string) {
    super(message);
  }
}

export function parseCsv(text: string): CsvRow[] {
  const rows: CsvRow[] = [];
  const n = text.length;
  let i = 0;
  let line = 1;
  while (i < n) {
    // Blank lines (only a line ending) are skipped.
    if (text[i] === '\n') { i++; line++; continue; }
    if (text[i] === '\r' && text[i + 1] === '\n') { i += 2; line++; continue; }
    const start = line;
    const fields: string[] = [];
    for (;;) {
      let value = '';
      if (text[i] === '"') {
        i++;
        for (;;) {
          if (i >= n) throw new CsvError(start, `extraneous or missing " in quoted-field`);
          const c = text[i];
          if (c === '"') {
            if (text[i + 1] === '"') { value += '"'; i += 2; continue; }
            i++;
            break;
          }
          if (c === '\n') line++;
          // Go normalises \r\n inside quoted fields to \n.
          if (c === '\r' && text[i + 1] === '\n') { i++; continue; }
          value += c;
          i++;
        }
        if (i < n && text[i] !== ',' && text[i] !== '\n' && !(text[i] === '\r' && text[i + 1] === '\n')) {
          throw new CsvError(line, `extraneous or missing " in quoted-field`);
        }
      } else {
        while (i < n && text[i] !== ',' && text[i] !== '\n' && !(text[i] === '\r' && text[i + 1] === '\n')) {
          if (text[i] === '"') throw new CsvError(line, `bare " in non-quoted-field`);
          value += text[i];
          i++;
        }
      }
      fields.push(value);
      if (i < n && text[i] === ',') { i++; continue; }
      break;
    }
    // Consume the record's line ending.
    if (text[i] === '\r') i++;
    if (text[i] === '\n') { i++; line++; }
    rows.push({ line: start, fields });
  }
  return rows;
}

/** One row of a static credential file: `secret,user,uid[,"group1,group2"][,ignored...]`. */
export interface CredentialRow {
  line: number;
  secret: string;
  user: UserInfo;
}

/**
 * The rows of a token or password file (`kind` names the file and its first column in errors;
 * `path` names the file). Fewer than 3 columns, or bad CSV, is an AuthnConfigError naming the line.
 */
export function parseCredentialFile(text: string, path: string, kind: 'token' | 'password'): CredentialRow[] {
  let rows;
  try {
    rows = parseCsv(text);
  } catch (err) {
    if (err instanceof CsvError) throw new AuthnConfigError(`${kind} file '${path}' line ${err.line}: ${err.message}`);
    throw err;
  }
  return rows.map(({ line, fields }) => {
    if (fields.length < 3) {
      throw new AuthnConfigError(
        `${kind} file '${path}' must have at least 3 columns (${kind}, user name, user uid), found ${fields.length} (line ${line})`,
      );
    }
    const [secret, name, uid, groups] = fields as [string, string, string, string | undefined];
    return { line, secret, user: { name, uid, groups: groups === undefined ? [] : groups.split(',').filter((g) => g !== '') } };
  });
}
