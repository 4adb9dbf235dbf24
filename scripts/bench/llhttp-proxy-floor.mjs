// The floor for a proxy on Node's own HTTP parser: the least a keep-alive reverse proxy can do per
// request with llhttp (the parser node:http and Portcullis' proxy run on) read straight from each
// socket, and no node:http objects. No authentication, no authorization, no header rules, no request
// bodies, no error answers: a measuring stick for the `proxy` scenario, not a proxy. What Portcullis'
// proxy costs above it is what its checks and its HTTP handling cost; nothing on Node is cheaper.
//   node scripts/bench/llhttp-proxy-floor.mjs PORT UPSTREAM_URL
import net from 'node:net';
import { createRequire } from 'node:module';

const { HTTPParser, methods } = createRequire(import.meta.url)('node:_http_common');
const { kOnHeadersComplete, kOnBody, kOnMessageComplete, kOnExecute } = HTTPParser;
const port = Number(process.argv[2]);
const upstream = new URL(process.argv[3]);

// writes of one turn go out at its end, as the proxy's do (src/request/write-batch.ts)
const dirty = new Set();
let scheduled = false;
function flushAll() {
  scheduled = false;
  for (const side of dirty) {
    const parts = side.out;
    side.out = [];
    side.sock.write(parts.length === 1 ? parts[0] : Buffer.concat(parts.map((x) => (typeof x === 'string' ? Buffer.from(x, 'latin1') : x))));
  }
  dirty.clear();
}
function send(side, data) {
  side.out.push(data);
  dirty.add(side);
  if (!scheduled) {
    scheduled = true;
    setImmediate(flushAll);
  }
}

/** llhttp reads the socket's native handle itself, as node:http's server does. */
function feed(sock, parser) {
  const start = () => {
    parser[kOnExecute] = (r) => { if (r instanceof Error) sock.destroy(); };
    parser.consume(sock._handle);
  };
  if (sock.connecting) sock.once('connect', start);
  else start();
}

const idle = [];
function upstreamConnection() {
  while (idle.length) {
    const c = idle.pop();
    if (!c.dead) return c;
  }
  const sock = net.connect(Number(upstream.port), upstream.hostname);
  sock.setNoDelay(true);
  const parser = new HTTPParser();
  parser.initialize(HTTPParser.RESPONSE, {}, 0, 0);
  const c = { sock, out: [], caller: null, chunked: false, dead: false };
  parser[kOnHeadersComplete] = (_maj, _min, headers, _method, _url, status, message) => {
    let head = `HTTP/1.1 ${status} ${message}\r\n`;
    let length = false;
    for (let i = 0; i < headers.length; i += 2) {
      const name = headers[i].toLowerCase();
      if (name === 'connection' || name === 'keep-alive' || name === 'transfer-encoding') continue;
      if (name === 'content-length') length = true;
      head += `${headers[i]}: ${headers[i + 1]}\r\n`;
    }
    c.chunked = !length;
    send(c.caller, `${head}${length ? '' : 'transfer-encoding: chunked\r\n'}\r\n`);
  };
  parser[kOnBody] = (b) => {
    if (c.chunked) send(c.caller, `${b.length.toString(16)}\r\n`);
    send(c.caller, b);
    if (c.chunked) send(c.caller, '\r\n');
  };
  parser[kOnMessageComplete] = () => {
    if (c.chunked) send(c.caller, '0\r\n\r\n');
    const caller = c.caller;
    c.caller = null;
    idle.push(c);
    caller.next();
  };
  feed(sock, parser);
  sock.on('error', () => {});
  sock.on('close', () => { c.dead = true; });
  return c;
}

net
  .createServer((sock) => {
    sock.setNoDelay(true);
    const parser = new HTTPParser();
    parser.initialize(HTTPParser.REQUEST, {}, 0, 0);
    // one request at a time per caller, in order
    const queue = [];
    let busy = false;
    const caller = {
      sock,
      out: [],
      next() {
        busy = false;
        take();
      },
    };
    function take() {
      if (busy || queue.length === 0) return;
      busy = true;
      const c = upstreamConnection();
      c.caller = caller;
      send(c, queue.shift());
    }
    parser[kOnHeadersComplete] = (_maj, _min, headers, method, url) => {
      let head = `${methods[method]} ${url} HTTP/1.1\r\n`;
      for (let i = 0; i < headers.length; i += 2) {
        const name = headers[i].toLowerCase();
        if (name !== 'connection' && name !== 'authorization') head += `${headers[i]}: ${headers[i + 1]}\r\n`;
      }
      queue.push(`${head}\r\n`);
    };
    parser[kOnMessageComplete] = take;
    feed(sock, parser);
    sock.on('error', () => {});
  })
  .listen(port, '127.0.0.1');
