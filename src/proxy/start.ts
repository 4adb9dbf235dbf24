// `portcullis proxy` assembled: the authenticator union and the policy (the same builders as the
// server; no store is opened), the routes, and the listeners. Used by the command and by the tests.
import { readFileSync } from 'node:fs';
import net, { type AddressInfo } from 'node:net';
import tls from 'node:tls';
import { readServiceAccountKeys, serviceAccountTokenAuthenticator } from '../authn/service-account.ts';
import { alwaysDeny } from '../authz/always.ts';
import { UnionAuthorizer } from '../authz/union.ts';
import type { Authorizer } from '../authz/types.ts';
import { authentication, type AuthenticationOptions } from '../config/authentication.ts';
import { authenticatorFromOptions } from '../authn/from-options.ts';
import type { ProxyConfig } from '../config/proxy.ts';
import { createAuthProxy } from './proxy.ts';
import { createH1Server } from './h1-server.ts';
import { createDelegation, type Delegation, type DelegationOptions } from './delegation.ts';
import { reloadingAuthorizer, type ReloadingAuthorizer } from './reloading-authorizer.ts';
import { loadPolicy } from './policy.ts';
import { liveRbac, type LiveRbac } from './live-rbac.ts';
import { openDecisionLog } from './decision-log.ts';

export interface ProxyOptions {
  config: ProxyConfig;
  /** host:port for HTTPS (needs tlsCertFile/tlsPrivateKeyFile); port 0 picks one. */
  secureListenAddress?: string;
  tlsCertFile?: string;
  tlsPrivateKeyFile?: string;
  /** Lowest TLS version offered (default TLS 1.2). */
  tlsMinVersion?: 'TLSv1.2' | 'TLSv1.3';
  /** OpenSSL cipher list (config/tls-suites.ts); default: Node's. */
  tlsCiphers?: string;
  /** host:port for plain HTTP. */
  insecureListenAddress?: string;
  /** The server's authentication options (--service-account-lookup is not available: no store). */
  authentication?: Partial<AuthenticationOptions>;
  /**
   * --auth-token-audiences: the sources that know audiences (service-account JWTs, the token
   * webhook, delegation's TokenReview) must find the token meant for one of these; a token or an
   * answer that names no audience is refused (src/authn/audiences.ts).
   */
  tokenAudiences?: string[];
  /** Policy sources as `portcullis can-i` takes them: policy-file (ABAC), rbac, bundle. */
  policy: Record<string, string[] | undefined>;
  entrypoint?: string;
  /** TokenReview + SubjectAccessReview against a remote API server (after the local authenticators and policy). */
  delegation?: DelegationOptions;
  /** RBAC objects listed and watched on the API server this kubeconfig names (swapped in on change). */
  rbacKubeconfig?: string;
  /** OPA-style decision log: a file (appended) or `-` for stdout. */
  decisionLog?: string;
  /** A 403 names the grants that would allow the request (RBAC and ABAC files): off by default, it tells who may do what. */
  explainDenials?: boolean;
  log?: (msg: string) => void;
}

export interface RunningProxy {
  /** https://host:port when a secure listener is up. */
  secureUrl?: string;
  insecureUrl?: string;
  authorizer?: ReloadingAuthorizer;
  liveRbac?: LiveRbac;
  delegation?: Delegation;
  close(): Promise<void>;
}

function splitAddress(addr: string): { host: string; port: number } {
  const i = addr.lastIndexOf(':');
  if (i < 0) throw new Error(`listen address ${JSON.stringify(addr)}: want host:port`);
  const port = Number(addr.slice(i + 1));
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`listen address ${JSON.stringify(addr)}: bad port`);
  return { host: addr.slice(0, i).replace(/^\[|\]$/g, '') || '0.0.0.0', port };
}

function listen(server: net.Server, addr: string): Promise<string> {
  const { host, port } = splitAddress(addr);
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const a = server.address() as AddressInfo;
      resolve(a.family === 'IPv6' ? `[${a.address}]:${a.port}` : `${a.address}:${a.port}`);
    });
  });
}

export async function startProxy(o: ProxyOptions): Promise<RunningProxy> {
  const log = o.log ?? ((m: string) => process.stderr.write(`${m}\n`));
  if (!o.secureListenAddress && !o.insecureListenAddress) throw new Error('give --secure-listen-address or --insecure-listen-address');
  if (o.secureListenAddress && (!o.tlsCertFile || !o.tlsPrivateKeyFile)) throw new Error('--secure-listen-address needs --tls-cert-file and --tls-private-key-file');
  const authn = o.authentication ?? {};
  const delegation = o.delegation ? createDelegation(o.delegation) : undefined;
  const saKeys = authn.serviceAccountKeyFile?.length ? readServiceAccountKeys(authn.serviceAccountKeyFile).verifying : undefined;
  // the server's union from the same options (the concern's defaults under what was given); a proxy
  // lets no one in unnamed unless asked to, and delegation's TokenReview comes last
  const authenticator = await authenticatorFromOptions(
    { ...authentication.defaults(), ...authn, anonymousAuth: authn.anonymousAuth ?? false },
    {
      serviceAccountTokens: saKeys ? serviceAccountTokenAuthenticator({ keys: Promise.resolve(saKeys) }) : undefined,
      lastTokenSources: delegation ? [delegation.tokenReview] : [],
      tokenAudiences: o.tokenAudiences?.length ? { wanted: o.tokenAudiences, implicit: [] } : undefined,
      log,
    },
  );
  if (o.tokenAudiences?.length && !authenticator.tokenSources.some((t) => t.authenticateTokenFor)) {
    // the sources built name no audience for their tokens: the flag would check nothing
    throw new Error('--auth-token-audiences needs a token source that knows audiences: --service-account-key-file, --authentication-token-webhook-config-file or --kubeconfig');
  }
  const trustsProxy = !!authn.requestheaderClientCaFile;

  const files = Object.values(o.policy).flatMap((v) => v ?? []);
  const needsPolicy = o.config.routes.some((r) => !r.ignore);
  let authorizer: ReloadingAuthorizer | undefined;
  if (files.length) authorizer = await reloadingAuthorizer(files, () => loadPolicy(o.policy, o.entrypoint, !!o.explainDenials), log);
  else if (needsPolicy && !delegation && !o.rbacKubeconfig) throw new Error('routes that are not `ignore` need a policy: --policy-file, --rbac, --bundle, --rbac-kubeconfig or --kubeconfig');
  let live: LiveRbac | undefined;
  try {
    live = o.rbacKubeconfig ? await liveRbac(o.rbacKubeconfig, log, !!o.explainDenials) : undefined;
  } catch (e) {
    authorizer?.close();
    await delegation?.close();
    throw new Error(`--rbac-kubeconfig: ${(e as Error).message}`);
  }
  const local: Authorizer[] = [...(authorizer ? [authorizer] : []), ...(live ? [live] : []), ...(delegation ? [delegation.subjectAccessReview] : [])];
  const policies = [authorizer, live].filter((p) => p !== undefined);

  const decisionLog = o.decisionLog ? openDecisionLog(o.decisionLog, log) : undefined;
  const proxy = createAuthProxy({
    config: o.config, authenticator, authorizer: local.length === 0 ? alwaysDeny : local.length === 1 ? local[0] : new UnionAuthorizer(local), proxyHeaders: trustsProxy, log,
    decisionLog,
    revision: () => policies.map((p) => p.current.revision).join(',') || undefined,
    explain: o.explainDenials
      ? (attrs) => policies.map((p) => p.current.explain?.(attrs)).filter(Boolean).join('; ') || (delegation ? 'the API server decides (delegation): not explained' : undefined)
      : undefined,
  });
  // bounded: a slow client cannot hold a connection open forever before sending its headers; an idle
  // kept-alive connection goes after node:http's default 5 s
  const front = createH1Server({ onRequest: proxy.handle, onUpgrade: proxy.upgrade, headersTimeoutMs: 30_000, keepAliveTimeoutMs: 5_000 });
  const servers: net.Server[] = [];
  const out: RunningProxy = { authorizer, liveRbac: live, delegation, close: async () => {} };
  const wire = (s: net.Server): net.Server => {
    servers.push(s);
    return s;
  };
  try {
    if (o.secureListenAddress) {
      // half-open sockets allowed: a caller that ends its side still gets its answers
      const s = wire(tls.createServer({
        allowHalfOpen: true,
        ALPNProtocols: ['http/1.1'],
        cert: readFileSync(o.tlsCertFile!),
        key: readFileSync(o.tlsPrivateKeyFile!),
        // the x509 authenticator verifies the chain against --client-ca-file; the handshake only asks
        requestCert: !!(authn.clientCaFile || trustsProxy),
        rejectUnauthorized: false,
        minVersion: o.tlsMinVersion ?? 'TLSv1.2',
        ...(o.tlsCiphers ? { ciphers: o.tlsCiphers } : {}),
      }, front.connection));
      out.secureUrl = `https://${await listen(s, o.secureListenAddress)}`;
    }
    if (o.insecureListenAddress) out.insecureUrl = `http://${await listen(wire(net.createServer({ allowHalfOpen: true }, front.connection)), o.insecureListenAddress)}`;
  } catch (e) {
    for (const s of servers) s.close();
    front.closeAll();
    authorizer?.close();
    proxy.close();
    await delegation?.close();
    await live?.close();
    await decisionLog?.close();
    throw e;
  }
  out.close = async () => {
    authorizer?.close();
    await Promise.all(servers.map((s) => new Promise<void>((r) => { s.close(() => r()); front.closeAll(); })));
    proxy.close();
    await delegation?.close();
    await live?.close();
    await decisionLog?.close();
  };
  return out;
}
