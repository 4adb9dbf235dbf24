// The bare node:http hello-world every REST figure is compared with, measured in the same run.
import http from 'node:http';

const body = JSON.stringify({ hello: 'world' });
const srv = http.createServer((req, res) => {
  req.resume();
  res.writeHead(200, { 'Content-Type': 'application/json' });
  res.end(body);
});
srv.listen(0, '127.0.0.1', () => process.stdout.write(`http://127.0.0.1:${srv.address().port}\n`));
