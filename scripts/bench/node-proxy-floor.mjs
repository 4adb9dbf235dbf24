// The runtime's floor for a proxy: the smallest keep-alive reverse proxy node:http makes (no
// authentication, no authorization, no header rewriting), measured in the `proxy` scenario beside
// `portcullis proxy` and nginx. Whatever Portcullis adds costs on top of this; nothing built on
// node:http on both sides can be cheaper.
//   node scripts/bench/node-proxy-floor.mjs PORT UPSTREAM_URL
import http from 'node:http';

const port = Number(process.argv[2]);
const upstream = new URL(process.argv[3]);
const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
http
  .createServer((req, res) => {
    const out = http.request(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers, agent },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    out.on('error', () => res.destroy());
    req.pipe(out);
  })
  .listen(port, '127.0.0.1');
