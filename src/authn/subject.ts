// Subject attributes of a DER certificate read from the ASN.1 directly (node-forge's DER reader):
// node:crypto only offers an escaped display string, and forge's full certificate parser refuses
// non-RSA keys. Values are returned exactly as encoded, in order, multi-valued RDNs included.
import forge from 'node-forge';

const OID_CN = '2.5.4.3';
const OID_O = '2.5.4.10';

export interface Subject {
  commonName: string;
  organizations: string[];
}

function decodeString(node: forge.asn1.Asn1): string {
  const raw = typeof node.value === 'string' ? node.value : '';
  switch (node.type) {
    case forge.asn1.Type.UTF8:
      return forge.util.decodeUtf8(raw);
    case forge.asn1.Type.BMPSTRING: {
      let s = '';
      for (let i = 0; i + 1 < raw.length; i += 2) s += String.fromCharCode((raw.charCodeAt(i) << 8) | raw.charCodeAt(i + 1));
      return s;
    }
    default:
      // PrintableString, IA5String, TeletexString (treated as Latin-1, as Go does).
      return raw;
  }
}

function children(node: forge.asn1.Asn1 | undefined): forge.asn1.Asn1[] {
  return node && Array.isArray(node.value) ? node.value : [];
}

/** Parse the subject of a DER certificate. Throws on malformed input. */
export function subjectOf(der: Buffer): Subject {
  const cert = forge.asn1.fromDer(forge.util.createBuffer(der.toString('binary')));
  const tbs = children(cert)[0];
  const fields = children(tbs);
  // Optional [0] version comes first; then serial, signature algorithm, issuer, validity, subject.
  const offset = fields[0]?.tagClass === forge.asn1.Class.CONTEXT_SPECIFIC ? 1 : 0;
  const subject = fields[offset + 4];
  if (!subject) throw new Error('certificate has no subject');
  const out: Subject = { commonName: '', organizations: [] };
  const cns: string[] = [];
  for (const rdn of children(subject)) {
    for (const atv of children(rdn)) {
      const [oidNode, valueNode] = children(atv);
      if (!oidNode || !valueNode || typeof oidNode.value !== 'string') continue;
      const oid = forge.asn1.derToOid(forge.util.createBuffer(oidNode.value));
      if (oid === OID_CN) cns.push(decodeString(valueNode));
      else if (oid === OID_O) out.organizations.push(decodeString(valueNode));
    }
  }
  // Go's pkix.Name keeps the last CN it sees.
  out.commonName = cns.length > 0 ? cns[cns.length - 1] : '';
  return out;
}
