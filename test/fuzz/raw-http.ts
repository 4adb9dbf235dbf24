// A raw HTTP/1.1 exchange for the fuzzing tests: bytes sent as given on a fresh connection (no client
// library to refuse or repair them), the first final answer read back and parsed by its framing.
import net from 'node:net';

/** A request head as the fuzzers generate it: every part written as given. */
export interface Head {
  method: string;
  target: string;
  version: string;
  headers: [string, string][];
  /** The line end: CRLF unless given (a bare LF is a head of its own kind). */
  eol?: string;
}

/**
 * The bytes of a head, with a body as long as a single plain Content-Length of at most 100 says (a
 * chunked end otherwise), so that a head whose framing the parser reads as written is complete.
 */
export function wire(h: Head): Buffer {
  const eol = h.eol ?? '\r\n';
  const lines = [`${h.method} ${h.target} ${h.version}`.trimEnd(), ...h.headers.map(([k, v]) => `${k}: ${v}`)];
  const lengths = h.headers.filter(([k]) => k.toLowerCase() === 'content-length');
  const chunked = h.headers.some(([k, v]) => k.toLowerCase() === 'transfer-encoding' && v.includes('chunked'));
  let body = '';
  if (lengths.length === 1 && /^\d+$/.test(lengths[0][1]) && Number(lengths[0][1]) <= 100) body = '{}'.padEnd(Number(lengths[0][1]), ' ').slice(0, Number(lengths[0][1]));
  else if (chunked) body = `0${eol}${eol}`;
  return Buffer.from(`${lines.join(eol)}${eol}${eol}${body}`, 'latin1');
}

export interface Answer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** The first final answer in `buf` once it is complete (1xx answers skipped), else undefined. */
function firstAnswer(buf: Buffer, head: boolean, closed: boolean): Answer | undefined {
  let at = 0;
  for (;;) {
    const end = buf.indexOf('\r\n\r\n', at);
    if (end < 0) return undefined;
    const [statusLine, ...lines] = buf.subarray(at, end).toString('latin1').split('\r\n');
    const m = /^HTTP\/1\.[01] (\d{3}) /.exec(`${statusLine} `);
    if (!m) throw new Error(`not an HTTP/1.1 status line: ${JSON.stringify(statusLine)}`);
    const status = Number(m[1]);
    const headers: Record<string, string> = {};
    for (const l of lines) headers[l.slice(0, l.indexOf(':')).toLowerCase()] = l.slice(l.indexOf(':') + 1).trim();
    const start = end + 4;
    if (status >= 100 && status < 200 && status !== 101) { at = start; continue; }
    if (head || status === 101 || status === 204 || status === 304) return { status, headers, body: Buffer.alloc(0) };
    if (headers['content-length'] !== undefined) {
      const n = Number(headers['content-length']);
      return buf.length - start >= n ? { status, headers, body: buf.subarray(start, start + n) } : undefined;
    }
    if (/chunked/i.test(headers['transfer-encoding'] ?? '')) {
      // de-chunk what is there; complete at the zero-length chunk
      const parts: Buffer[] = [];
      let p = start;
      for (;;) {
        const lineEnd = buf.indexOf('\r\n', p);
        if (lineEnd < 0) return undefined;
        const size = parseInt(buf.subarray(p, lineEnd).toString('latin1'), 16);
        if (size === 0) return { status, headers, body: Buffer.concat(parts) };
        if (buf.length < lineEnd + 2 + size + 2) return undefined;
        parts.push(buf.subarray(lineEnd + 2, lineEnd + 2 + size));
        p = lineEnd + 2 + size + 2;
      }
    }
    return closed ? { status, headers, body: buf.subarray(start) } : undefined;
  }
}

/** Nothing but interim (1xx) answers, such as the 100 Continue that Node sends unasked. */
const INTERIM_ONLY = /^(HTTP\/1\.1 1\d\d [^\r]*\r\n(?:[^\r]+\r\n)*\r\n)*$/;

/**
 * Sends the head on a fresh connection; the first answer, or an error saying why there is none.
 * A head whose framing leaves its request unfinished (a length the server reads differently) is
 * ended with the caller's FIN: a request cut short may be closed without an answer ('cut').
 */
export function exchange(port: number, bytes: Buffer, head: boolean, answerMs: number): Promise<Answer | 'cut'> {
  return new Promise((resolve, reject) => {
    const s = net.connect(port, '127.0.0.1');
    let buf = Buffer.alloc(0);
    let done = false;
    let finSent = false;
    const finish = (err: Error | undefined, a?: Answer | 'cut') => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      s.destroy();
      if (err) reject(err);
      else resolve(a!);
    };
    const look = (closed: boolean) => {
      try {
        const a = firstAnswer(buf, head, closed);
        if (a) finish(undefined, a);
        else if (closed && finSent && INTERIM_ONLY.test(buf.toString('latin1'))) finish(undefined, 'cut');
        else if (closed) finish(new Error(`closed without a complete answer: ${JSON.stringify(buf.toString('latin1').slice(0, 200))}`));
      } catch (e) {
        finish(e as Error);
      }
    };
    // a head the parser still waits on (a length it reads differently) ends with the caller's FIN
    const halfClose = setTimeout(() => {
      finSent = true;
      s.end();
    }, answerMs / 2);
    const timer = setTimeout(() => finish(new Error('no answer in time')), answerMs);
    s.on('connect', () => s.write(bytes));
    s.on('data', (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      look(false);
    });
    s.on('close', () => {
      clearTimeout(halfClose);
      look(true);
    });
    s.on('error', () => look(true));
  });
}
