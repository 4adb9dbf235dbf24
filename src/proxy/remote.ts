// An API server named by a kubeconfig, as the proxy talks to it: base URL, a TLS agent with the
// file's CA and client certificate, and its bearer or basic credentials. Used by delegation (the
// reviews) and by the live RBAC policy (list + watch).
import { Agent } from 'undici';
import { loadKubeconfig } from '../config/kubeconfig.ts';

export interface Remote {
  base: string;
  agent: Agent;
  auth: Record<string, string>;
}

export function openRemote(kubeconfig: string): Remote {
  const cfg = loadKubeconfig(kubeconfig);
  const agent = new Agent({ connect: { ca: cfg.ca, cert: cfg.cert, key: cfg.key, servername: cfg.tlsServerName, rejectUnauthorized: !cfg.insecureSkipTlsVerify } });
  const auth: Record<string, string> = cfg.token
    ? { authorization: `Bearer ${cfg.token}` }
    : cfg.username !== undefined ? { authorization: `Basic ${Buffer.from(`${cfg.username}:${cfg.password ?? ''}`).toString('base64')}` } : {};
  return { base: cfg.server.replace(/\/$/, ''), agent, auth };
}
