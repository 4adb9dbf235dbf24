// The `Warning` response header (RFC 7234 §5.5; code 299, agent "-"), as the reference writes it and
// kubectl and client-go print it ("Warning: unknown field …"). Warnings can echo a client's own keys,
// so they are bounded as the reference bounds them: past 4 KiB in all, each is cut to 256 characters,
// and those that still do not fit are left out.
import type { ServerResponse } from 'node:http';

const TOTAL_LIMIT = 4 * 1024;
const ITEM_LIMIT = 256;

/** The header values for `messages`: deduplicated, bounded, each a quoted string of printable ASCII. */
export function warningHeaderValues(messages: readonly string[]): string[] {
  let items = [...new Set(messages)];
  if (items.reduce((n, m) => n + m.length, 0) > TOTAL_LIMIT) items = items.map((m) => (m.length > ITEM_LIMIT ? m.slice(0, ITEM_LIMIT) : m));
  const out: string[] = [];
  let total = 0;
  for (const m of items) {
    if (total + m.length > TOTAL_LIMIT) break;
    total += m.length;
    out.push(`299 - "${headerText(m)}"`);
  }
  return out;
}

/**
 * `text` inside a quoted string: `\` and `"` escaped, and every character outside printable ASCII as a
 * \u escape. (The reference writes UTF-8; Node writes a header's characters as UTF-8 or as Latin-1
 * depending on how the body is written, and refuses those above U+00FF, so only ASCII is sent as is.)
 */
function headerText(text: string): string {
  return text.replace(/[\\"]/g, (c) => `\\${c}`).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Adds the warnings to a response whose head is not written yet. */
export function setWarnings(res: ServerResponse, messages: readonly string[] | undefined): void {
  if (!messages || messages.length === 0) return;
  const values = warningHeaderValues(messages);
  if (values.length > 0) res.setHeader('Warning', values);
}
