// The two ranges Services draw from (--service-cluster-ip-range, --service-node-port-range), as
// offsets: an IPv4 CIDR's usable addresses (network and broadcast addresses excluded, as the
// reference's allocator does) and an inclusive port range.

export interface Range {
  /** How the range is named in errors and in the stored RangeAllocation (`10.0.0.0/24`, `30000-32767`). */
  readonly text: string;
  readonly size: number;
  /** The offset of a value, or undefined when the value is outside the range (or malformed). */
  offsetOf(value: string | number): number | undefined;
  valueAt(offset: number): string | number;
}

function ipToInt(ip: string): number | undefined {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(ip);
  if (!m) return undefined;
  const parts = m.slice(1).map(Number);
  if (parts.some((p) => p > 255)) return undefined;
  return ((parts[0] << 24) | (parts[1] << 16) | (parts[2] << 8) | parts[3]) >>> 0;
}

const intToIp = (n: number): string => [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');

/** An IPv4 CIDR (`10.0.0.0/24`); throws on a malformed one or one with fewer than one usable address. */
export function cidrRange(cidr: string): Range {
  const [ip, bits] = cidr.split('/');
  const base = ipToInt(ip ?? '');
  const prefix = Number(bits);
  if (base === undefined || !/^\d{1,2}$/.test(bits ?? '') || prefix > 30 || prefix < 8) throw new Error(`invalid CIDR ${JSON.stringify(cidr)}: an IPv4 network of prefix length 8 to 30`);
  const mask = prefix === 0 ? 0 : (~0 << (32 - prefix)) >>> 0;
  const network = (base & mask) >>> 0;
  const size = 2 ** (32 - prefix) - 2;
  const text = `${intToIp(network)}/${prefix}`;
  return {
    text,
    size,
    offsetOf(value) {
      const n = typeof value === 'string' ? ipToInt(value) : undefined;
      if (n === undefined) return undefined;
      const off = n - network - 1;
      return off >= 0 && off < size ? off : undefined;
    },
    valueAt: (offset) => intToIp(network + 1 + offset),
  };
}

/** `30000-32767` (or `30000+2768`, base and size); throws on a malformed or empty range. */
export function portRange(text: string): Range {
  const m = /^(\d{1,5})([-+])(\d{1,5})$/.exec(text.trim());
  if (!m) throw new Error(`invalid port range ${JSON.stringify(text)}: want FIRST-LAST`);
  const base = Number(m[1]);
  const last = m[2] === '-' ? Number(m[3]) : base + Number(m[3]) - 1;
  if (base < 1 || last > 65535 || last < base) throw new Error(`invalid port range ${JSON.stringify(text)}: ports 1-65535, first ≤ last`);
  return {
    text: `${base}-${last}`,
    size: last - base + 1,
    offsetOf(value) {
      if (typeof value !== 'number' || !Number.isInteger(value)) return undefined;
      return value >= base && value <= last ? value - base : undefined;
    },
    valueAt: (offset) => base + offset,
  };
}
