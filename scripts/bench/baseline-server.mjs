// The bare node:http hello-world every REST figure is compared with, measured in the same run. With
// `--cert FILE --key FILE` it is a node:https server with that certificate (the `e2e` scenario). With
// `--koa` the same answer comes from a Koa app with one middleware: the front door's framework alone,
// the ceiling of anything built on it (the `e2e` scenario's reference line).
import http from 'node:http';
import https from 'node:https';
import { readFileSync } from 'node:fs';
import Koa from 'koa';

const body = JSON.stringify({ hello: 'world' });
const plain = (req, res) => {
  req.resume();
  res.writeHead(200, { 'Content-Type': 'application/json' });
  res.end(body);
};
const arg = (name) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};
let handler = plain;
if (process.argv.includes('--koa')) {
  const app = new Koa();
  app.use((ctx) => {
    ctx.type = 'application/json';
    ctx.body = body;
  });
  handler = app.callback();
}
const cert = arg('--cert');
const srv = cert ? https.createServer({ cert: readFileSync(cert), key: readFileSync(arg('--key')) }, handler) : http.createServer(handler);
srv.listen(0, '127.0.0.1', () => process.stdout.write(`${cert ? 'https' : 'http'}://127.0.0.1:${srv.address().port}\n`));
