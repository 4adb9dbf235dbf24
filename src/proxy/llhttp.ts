// Node's own HTTP/1 parser (llhttp, the one node:http's server and client run on), as the proxy's
// upstream client reads answers with it. Reached through `node:_http_common`, the module undici and
// Node's own http use; it has no published types, so the shape used here is declared and checked
// once at load: a runtime without it fails at start with a clear message, not on a request.
import { createRequire } from 'node:module';

/** llhttp's message callbacks, as Node's binding calls them (header lists are flat name, value pairs). */
export interface LlhttpParser {
  initialize(type: number, resource: object, maxHeaderSize: number, lenient: number): void;
  /** Bytes parsed, or an Error with `code` (HPE_*) and `reason` when the input is not HTTP/1. */
  execute(data: Buffer): number | Error;
  /** The input ended (EOF): completes a body read until close, or an Error for a message cut short. */
  finish(): number | Error | undefined;
  close(): void;
  [key: number]: unknown;
}

interface LlhttpBinding {
  new (): LlhttpParser;
  readonly REQUEST: number;
  readonly RESPONSE: number;
  readonly kOnHeaders: number;
  readonly kOnHeadersComplete: number;
  readonly kOnBody: number;
  readonly kOnMessageComplete: number;
  readonly kLenientNone: number;
}

function load(): LlhttpBinding {
  const mod = createRequire(import.meta.url)('node:_http_common') as { HTTPParser?: unknown };
  const p = mod.HTTPParser as Partial<LlhttpBinding> | undefined;
  const numbers = ['RESPONSE', 'kOnHeaders', 'kOnHeadersComplete', 'kOnBody', 'kOnMessageComplete', 'kLenientNone'] as const;
  if (typeof p !== 'function' || numbers.some((k) => typeof p[k] !== 'number')) {
    throw new Error(`portcullis proxy: this Node.js (${process.version}) does not offer its HTTP parser as node:_http_common's HTTPParser`);
  }
  return p as LlhttpBinding;
}

export const HTTPParser: LlhttpBinding = load();

/** Called with llhttp's header block when it is complete (flat name, value pairs; status for a response). */
export type OnHeadersComplete = (
  versionMajor: number,
  versionMinor: number,
  headers: string[] | undefined,
  method: number | undefined,
  url: string | undefined,
  statusCode: number,
  statusMessage: string,
  upgrade: boolean,
  shouldKeepAlive: boolean,
) => number;
