/** A boolean query parameter the way the reference server reads it (strconv.ParseBool's true forms). */
export function isTrue(v: string | null): boolean {
  return v !== null && ['1', 't', 'true', 'T', 'TRUE', 'True'].includes(v);
}
