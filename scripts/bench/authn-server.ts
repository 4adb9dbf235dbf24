// Child process for the `authn` benchmark: an HTTPS server on loopback with the serving certificate
// of a development PKI. `bare` answers a fixed JSON body (the comparison point); `authn` first runs
// the real TLS options + authenticator (client CA, token file) and answers the user as JSON.
// Prints its URL on stdout, runs until killed.
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { buildTlsServerOptions, peerChainOf } from '../../src/authn/tls.ts';
import { buildAuthenticator } from '../../src/authn/build.ts';
import { StatusError } from '../../src/request/errors.ts';

const [mode, dir, tokenFile] = process.argv.slice(2);
const tls = { certFile: `${dir}/serving.crt`, keyFile: `${dir}/serving.key` };
const body = JSON.stringify({ hello: 'world' });

if (mode === 'portcullis') {
  // The real server: TLS, the authenticator union, the authorizer (ABAC, line for system:masters) and
  // the generic registry, serving GET of a Namespace.
  const { writeFileSync } = await import('node:fs');
  const policy = `${dir}/bench-policy.jsonl`;
  writeFileSync(policy, `${JSON.stringify({ apiVersion: 'abac.authorization.platform.io/v1beta1', kind: 'Policy', spec: { group: 'system:masters', namespace: '*', resource: '*', apiGroup: '*', nonResourcePath: '*' } })}\n`);
  const { createServer: createPortcullis } = await import('../../src/server/server.ts');
  const s = await createPortcullis(
    {
      securePort: 0,
      bindAddress: '127.0.0.1',
      tlsCertFile: tls.certFile,
      tlsPrivateKeyFile: tls.keyFile,
      clientCaFile: `${dir}/ca.crt`,
      tokenAuthFile: tokenFile,
      anonymousAuth: false,
      authorizationMode: ['ABAC'],
      authorizationPolicyFile: policy,
      maxRequestsInflight: 0,
    },
    { log: () => {} },
  );
  process.stdout.write(`${s.secureUrl}\n`);
} else {
const server =
  mode === 'bare'
    ? createServer(buildTlsServerOptions(tls), (req, res) => {
        req.resume();
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(body);
      })
    : await (async () => {
        const authn = await buildAuthenticator({ clientCaFile: `${dir}/ca.crt`, tokenAuthFile: tokenFile, anonymousAuth: false });
        return createServer(buildTlsServerOptions({ ...tls, clientCaFiles: [`${dir}/ca.crt`] }), (req, res) => {
          req.resume();
          // authenticate may settle at once, throwing its 401: a promise either way
          Promise.resolve()
            .then(() => authn.authenticate({ headers: req.headers, peerCertificates: peerChainOf(req.socket), headersDistinct: req.headersDistinct }))
            .then((user) => {
              res.writeHead(200, { 'content-type': 'application/json' });
              res.end(JSON.stringify(user));
            })
            .catch((err: unknown) => {
              const e = err instanceof StatusError ? err : new StatusError(500, 'InternalError', 'internal error');
              res.writeHead(e.code, { ...e.headers, 'content-type': 'application/json' });
              res.end(JSON.stringify(e.toStatus()));
            });
        });
      })();

server.listen(0, '127.0.0.1', () => process.stdout.write(`https://127.0.0.1:${(server.address() as AddressInfo).port}\n`));
}
