// One bounded JSON exchange with a remote party of authentication (OIDC provider, token webhook,
// identity service): https only, a timeout, a size cap on the answer, and a parse that keeps wire
// keys off prototypes. Errors say what went wrong, never what was sent (it may be a credential).
import { Agent, request } from 'undici';
import { parseJson, type JsonValue } from '../api/safe-json.ts';

export interface TlsMaterial {
  /** PEM CA bundle; absent: the system roots. */
  ca?: string;
  cert?: string;
  key?: string;
  servername?: string;
  insecureSkipTlsVerify?: boolean;
}

export interface RemoteAnswer {
  status: number;
  /** The parsed body, or undefined when it is not JSON. */
  json: JsonValue | undefined;
}

/** Answers bigger than this are refused: a JWKS, a discovery document or a review is a few KiB. */
export const MAX_ANSWER_BYTES = 1 << 20;
const DEFAULT_TIMEOUT_MS = 10_000;

export function tlsAgent(tls: TlsMaterial): Agent {
  return new Agent({
    connect: { ca: tls.ca, cert: tls.cert, key: tls.key, servername: tls.servername, rejectUnauthorized: !tls.insecureSkipTlsVerify },
  });
}

export async function exchangeJson(
  agent: Agent,
  url: string,
  init: { method: 'GET' | 'POST'; body?: unknown; timeoutMs?: number; headers?: Record<string, string> },
): Promise<RemoteAnswer> {
  if (!url.startsWith('https://')) throw new Error('only https is allowed');
  const timeout = init.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const res = await request(url, {
    method: init.method,
    dispatcher: agent,
    headers: { accept: 'application/json', ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}), ...init.headers },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
    headersTimeout: timeout,
    bodyTimeout: timeout,
    maxRedirections: 0,
  });
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res.body) {
    size += (chunk as Buffer).length;
    if (size > MAX_ANSWER_BYTES) {
      res.body.destroy();
      throw new Error(`answer larger than ${MAX_ANSWER_BYTES} bytes`);
    }
    chunks.push(chunk as Buffer);
  }
  let json: JsonValue | undefined;
  try {
    json = parseJson(Buffer.concat(chunks).toString('utf8'));
  } catch {
    json = undefined;
  }
  return { status: res.statusCode, json };
}

export function isObject(v: JsonValue | undefined): v is { [k: string]: JsonValue } {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A message for a failed exchange: the error's own text (undici's say what failed, not what was sent). */
export function failureText(e: unknown): string {
  const err = e as { code?: unknown; message?: unknown };
  return typeof err?.code === 'string' ? err.code : typeof err?.message === 'string' ? err.message : String(e);
}
