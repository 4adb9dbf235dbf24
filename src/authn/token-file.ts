// --token-auth-file: CSV token,user,uid[,"group1,group2"][,ignored...]. Tokens are held only as
// SHA-256 digests and looked up by digest, so no comparison ever runs over the secret itself.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { UserInfo } from './types.ts';
import { parseCsv, CsvError } from './csv.ts';
import type { TokenAuthenticator } from './token.ts';
import { AuthnConfigError } from './config-error.ts';

function digest(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('base64');
}

function groupsOf(field: string | undefined): string[] {
  return field === undefined ? [] : field.split(',').filter((g) => g !== '');
}

/** Parse the file's text; `path` names it in errors. Duplicate tokens: the last row wins. */
export function parseTokenFile(text: string, path: string): Map<string, UserInfo> {
  const users = new Map<string, UserInfo>();
  let rows;
  try {
    rows = parseCsv(text);
  } catch (err) {
    if (err instanceof CsvError) throw new AuthnConfigError(`token file '${path}' line ${err.line}: ${err.message}`);
    throw err;
  }
  for (const { line, fields } of rows) {
    if (fields.length < 3) {
      throw new AuthnConfigError(`token file '${path}' must have at least 3 columns (token, user name, user uid), found ${fields.length} (line ${line})`);
    }
    const [token, name, uid, groups] = fields;
    if (token === '') throw new AuthnConfigError(`token file '${path}' has an empty token (line ${line})`);
    users.set(digest(token), { name, uid, groups: groupsOf(groups) });
  }
  return users;
}

export function tokenFileAuthenticator(users: Map<string, UserInfo>): TokenAuthenticator {
  return {
    name: 'token-file',
    async authenticateToken(token: string): Promise<UserInfo | null> {
      const user = users.get(digest(token));
      return user ? { ...user, groups: [...user.groups] } : null;
    },
  };
}

export function tokenFileAuthenticatorFromFile(path: string): TokenAuthenticator {
  return tokenFileAuthenticator(parseTokenFile(readFileSync(path, 'utf8'), path));
}
