// Encoded texts (or bytes) of values that never change, kept by the value, least recently used first
// out, within a budget (texts of UTF-16 code units counted as their length, buffers as theirs).
export class TextCache<T extends string | Buffer = string> {
  private readonly texts = new Map<object, T>();
  private bytes = 0;

  /** `budget`: total length kept; `min`..`max`: the lengths worth keeping (a larger text is not kept). */
  constructor(
    private readonly budget: number,
    private readonly min = 0,
    private readonly max = budget / 4,
  ) {}

  get(key: object): T | undefined {
    const hit = this.texts.get(key);
    if (hit !== undefined) {
      this.texts.delete(key);
      this.texts.set(key, hit);
    }
    return hit;
  }

  set(key: object, text: T): void {
    if (text.length < this.min || text.length > this.max || this.texts.has(key)) return;
    this.texts.set(key, text);
    this.bytes += text.length;
    for (const [old, oldText] of this.texts) {
      if (this.bytes <= this.budget) break;
      this.texts.delete(old);
      this.bytes -= oldText.length;
    }
  }

  get size(): number {
    return this.texts.size;
  }

  get length(): number {
    return this.bytes;
  }
}
