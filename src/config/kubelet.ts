import type { Concern } from './concern.ts';
import { FlagError } from './flag-table.ts';

/** How the server reaches the nodes' kubelets (pod logs, exec, attach, port-forward, proxy). */
export interface KubeletOptions {
  /** Client certificate (PEM) the server presents to kubelets. */
  kubeletClientCertificate?: string;
  kubeletClientKey?: string;
  /** CA bundle (PEM) kubelet serving certificates are verified against; absent: not verified, as the reference. */
  kubeletCertificateAuthority?: string;
  /** Talk HTTPS to kubelets (the reference's default) rather than plain HTTP. */
  kubeletHttps: boolean;
  /** Connect/response-header timeout of a kubelet request: a Go duration (`5s`, `500ms`, `1m`). */
  kubeletTimeout: string;
}

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** A Go-style duration (`5s`, `1m30s`, `250ms`) in milliseconds; undefined when it is not one. */
export function durationMs(text: string): number | undefined {
  if (!/^(\d+(\.\d+)?(ms|s|m|h))+$/.test(text)) return undefined;
  let total = 0;
  for (const m of text.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)) total += Number(m[1]) * UNITS[m[2]];
  return total;
}

export const kubelet: Concern<KubeletOptions> = {
  title: 'Kubelet client',
  flags: [
    { name: 'kubelet-client-certificate', key: 'kubeletClientCertificate', type: 'string', value: 'FILE', help: 'Client certificate (PEM) for connections to kubelets.' },
    { name: 'kubelet-client-key', key: 'kubeletClientKey', type: 'string', value: 'FILE', help: 'Private key of --kubelet-client-certificate.' },
    { name: 'kubelet-certificate-authority', key: 'kubeletCertificateAuthority', type: 'string', value: 'FILE', help: 'CA bundle to verify kubelet serving certificates (unverified without it).' },
    { name: 'kubelet-https', key: 'kubeletHttps', type: 'bool', help: 'Use HTTPS for kubelet connections.' },
    { name: 'kubelet-timeout', key: 'kubeletTimeout', type: 'string', value: 'DURATION', help: 'Timeout for kubelet connections and response headers.' },
  ],
  defaults: () => ({ kubeletHttps: true, kubeletTimeout: '5s' }),
  validate(options) {
    if (Boolean(options.kubeletClientCertificate) !== Boolean(options.kubeletClientKey)) {
      throw new FlagError('--kubelet-client-certificate and --kubelet-client-key go together');
    }
    const ms = durationMs(options.kubeletTimeout);
    if (ms === undefined || ms <= 0) throw new FlagError(`--kubelet-timeout: ${JSON.stringify(options.kubeletTimeout)} is not a positive duration (5s, 500ms, 1m)`);
  },
};
