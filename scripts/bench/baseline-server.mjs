// The bare node:http hello-world every REST figure is compared with, measured in the same run. With
// `--cert FILE --key FILE` it is a node:https server with that certificate (the `e2e` scenario).
import http from 'node:http';
import https from 'node:https';
import { readFileSync } from 'node:fs';

const body = JSON.stringify({ hello: 'world' });
const handler = (req, res) => {
  req.resume();
  res.writeHead(200, { 'Content-Type': 'application/json' });
  res.end(body);
};
const arg = (name) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const cert = arg('--cert');
const srv = cert ? https.createServer({ cert: readFileSync(cert), key: readFileSync(arg('--key')) }, handler) : http.createServer(handler);
srv.listen(0, '127.0.0.1', () => process.stdout.write(`${cert ? 'https' : 'http'}://127.0.0.1:${srv.address().port}\n`));
