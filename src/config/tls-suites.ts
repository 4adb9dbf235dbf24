// kube-rbac-proxy's (and the Go ecosystem's) TLS flags in Node's terms: --tls-min-version takes Go's
// version names, --tls-cipher-suites the IANA suite names Go uses; OpenSSL wants its own names. As in
// Go, the suite list governs TLS 1.2 only: the TLS 1.3 suites are always offered.

/** Go's version names we accept; below TLS 1.2 is refused on purpose (a gateway does not downgrade). */
const TLS_MIN_VERSIONS = { VersionTLS12: 'TLSv1.2', VersionTLS13: 'TLSv1.3' } as const;

/** IANA name → OpenSSL name, for the TLS 1.2 suites Go's crypto/tls implements (secure ones and the CBC/RSA key exchange ones). */
const TLS12_SUITES: Readonly<Record<string, string>> = {
  TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256: 'ECDHE-ECDSA-AES128-GCM-SHA256',
  TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256: 'ECDHE-RSA-AES128-GCM-SHA256',
  TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384: 'ECDHE-ECDSA-AES256-GCM-SHA384',
  TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384: 'ECDHE-RSA-AES256-GCM-SHA384',
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256: 'ECDHE-ECDSA-CHACHA20-POLY1305',
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305: 'ECDHE-ECDSA-CHACHA20-POLY1305',
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256: 'ECDHE-RSA-CHACHA20-POLY1305',
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305: 'ECDHE-RSA-CHACHA20-POLY1305',
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA: 'ECDHE-ECDSA-AES128-SHA',
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA: 'ECDHE-RSA-AES128-SHA',
  TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA: 'ECDHE-ECDSA-AES256-SHA',
  TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA: 'ECDHE-RSA-AES256-SHA',
  TLS_RSA_WITH_AES_128_GCM_SHA256: 'AES128-GCM-SHA256',
  TLS_RSA_WITH_AES_256_GCM_SHA384: 'AES256-GCM-SHA384',
  TLS_RSA_WITH_AES_128_CBC_SHA: 'AES128-SHA',
  TLS_RSA_WITH_AES_256_CBC_SHA: 'AES256-SHA',
};

/** The TLS 1.3 suites (named the same in IANA and OpenSSL); always on, and accepted in the list as Go accepts them. */
const TLS13_SUITES = ['TLS_AES_128_GCM_SHA256', 'TLS_AES_256_GCM_SHA384', 'TLS_CHACHA20_POLY1305_SHA256'];

/** Node's `minVersion` for a --tls-min-version value; throws on anything else. */
export function tlsMinVersion(flag: string): 'TLSv1.2' | 'TLSv1.3' {
  if (Object.hasOwn(TLS_MIN_VERSIONS, flag)) return TLS_MIN_VERSIONS[flag as keyof typeof TLS_MIN_VERSIONS];
  if (flag === 'VersionTLS10' || flag === 'VersionTLS11') throw new Error(`--tls-min-version ${flag}: versions below TLS 1.2 are not offered`);
  throw new Error(`--tls-min-version: unknown version ${JSON.stringify(flag)} (want ${Object.keys(TLS_MIN_VERSIONS).join(' or ')})`);
}

/**
 * Node's `ciphers` string for a --tls-cipher-suites list: the named TLS 1.2 suites in the given order,
 * then every TLS 1.3 suite. Throws on an unknown name or an empty list.
 */
export function opensslCipherList(names: readonly string[]): string {
  const tls12: string[] = [];
  for (const name of names) {
    if (TLS13_SUITES.includes(name)) continue;
    if (!Object.hasOwn(TLS12_SUITES, name)) throw new Error(`--tls-cipher-suites: unknown or unsupported suite ${JSON.stringify(name)}`);
    const openssl = TLS12_SUITES[name];
    if (!tls12.includes(openssl)) tls12.push(openssl);
  }
  if (names.length === 0) throw new Error('--tls-cipher-suites: name at least one suite');
  return [...TLS13_SUITES, ...tls12].join(':');
}
