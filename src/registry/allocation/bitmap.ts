// A set of offsets as the bytes of a bitmap (bit i of byte i>>3), base64 in a stored RangeAllocation's `data`.

export class Bitmap {
  private constructor(private readonly bytes: Uint8Array) {}

  static empty(size: number): Bitmap {
    return new Bitmap(new Uint8Array(Math.ceil(size / 8)));
  }

  /** The bitmap of `data` (base64), sized for `size` offsets; bits past the size are dropped. */
  static decode(data: unknown, size: number): Bitmap {
    const b = Bitmap.empty(size);
    if (typeof data === 'string') {
      const raw = Buffer.from(data, 'base64');
      b.bytes.set(raw.subarray(0, b.bytes.length));
      for (let i = size; i < b.bytes.length * 8; i++) b.clear(i);
    }
    return b;
  }

  encode(): string {
    return Buffer.from(this.bytes).toString('base64');
  }

  has(i: number): boolean {
    return (this.bytes[i >> 3] & (1 << (i & 7))) !== 0;
  }

  set(i: number): void {
    this.bytes[i >> 3] |= 1 << (i & 7);
  }

  clear(i: number): void {
    this.bytes[i >> 3] &= ~(1 << (i & 7));
  }

  equals(other: Bitmap): boolean {
    return Buffer.from(this.bytes).equals(Buffer.from(other.bytes));
  }
}
