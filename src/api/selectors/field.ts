// Field selectors (api-machinery §4.2): `f=v`, `f==v`, `f!=v` joined by `,`, values escaping `\,` `\=`
// `\\`. Each field must be one of the kind's field labels (strategy.fieldLabels plus metadata.name and
// metadata.namespace); anything else is a 400 with the kind's old-style message.
import { errors } from '../../request/errors.ts';
import type { ApiObject } from '../object.ts';
import { getOwn } from '../safe-json.ts';
import type { KindStrategy } from '../strategy.ts';

export interface FieldTerm {
  readonly field: string;
  readonly operator: '=' | '!=';
  /** Unescaped value. */
  readonly value: string;
}

export class FieldSelector {
  /** Terms sorted by their source text, as upstream sorts them. */
  constructor(readonly terms: readonly FieldTerm[]) {}

  isEmpty(): boolean {
    return this.terms.length === 0;
  }

  toString(): string {
    return this.terms.map((t) => `${t.field}${t.operator}${escapeFieldValue(t.value)}`).join(',');
  }
}

export function escapeFieldValue(v: string): string {
  return v.replace(/[\\,=]/g, (c) => `\\${c}`);
}

/** Split on commas that are not escaped; escapes stay in the terms. */
function splitTerms(s: string): string[] {
  if (s === '') return [];
  const terms: string[] = [];
  let start = 0;
  let inSlash = false;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (inSlash) inSlash = false;
    else if (c === '\\') inSlash = true;
    else if (c === ',') {
      terms.push(s.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(s.slice(start));
  return terms;
}

// `==` is tried before `=` so that it does not leave a leading '=' in the value.
const termOperators = ['!=', '==', '='] as const;

function splitTerm(term: string): { lhs: string; op: (typeof termOperators)[number]; rhs: string } | undefined {
  for (let i = 0; i < term.length; i++) {
    for (const op of termOperators) {
      if (term.startsWith(op, i)) return { lhs: term.slice(0, i), op, rhs: term.slice(i + op.length) };
    }
  }
  return undefined;
}

function unescapeValue(s: string): string {
  if (!/[\\,=]/.test(s)) return s;
  let out = '';
  let inSlash = false;
  for (const c of s) {
    if (inSlash) {
      if (c !== '\\' && c !== ',' && c !== '=') {
        throw errors.badRequest(`invalid field selector: invalid escape sequence: \\${c}`);
      }
      out += c;
      inSlash = false;
      continue;
    }
    if (c === '\\') inSlash = true;
    else if (c === ',' || c === '=') {
      // Go prints the rune with %v, i.e. as its code point number.
      throw errors.badRequest(`invalid field selector: unescaped character in value: ${c.codePointAt(0)}`);
    } else out += c;
  }
  if (inSlash) throw errors.badRequest('invalid field selector: invalid escape sequence: \\');
  return out;
}

/** Parse the `fieldSelector` query parameter. Throws a 400 StatusError with the reference message. */
export function parseFieldSelector(s: string): FieldSelector {
  const parts = splitTerms(s).sort();
  const terms: FieldTerm[] = [];
  for (const part of parts) {
    if (part === '') continue;
    const split = splitTerm(part);
    if (!split) throw errors.badRequest(`invalid selector: '${s}'; can't understand '${part}'`);
    terms.push({ field: split.lhs, operator: split.op === '!=' ? '!=' : '=', value: unescapeValue(split.rhs) });
  }
  return new FieldSelector(terms);
}

/** Fields every kind can be selected by. */
export const defaultFieldLabels: Readonly<Record<string, (obj: ApiObject) => string>> = {
  'metadata.name': (obj) => obj.metadata.name ?? '',
  'metadata.namespace': (obj) => obj.metadata.namespace ?? '',
};

/**
 * The reader for one field label of a kind, or undefined when the kind has no such label. Own entries
 * only: `constructor` or `toString` from the query is a field label no kind has.
 */
export function fieldLabelReader(strategy: KindStrategy, field: string): ((obj: ApiObject) => string) | undefined {
  return getOwn(strategy.fieldLabels, field) ?? getOwn(defaultFieldLabels, field);
}

function unsupportedMessage(strategy: KindStrategy, kind: string, label: string): string {
  return strategy.fieldLabelMessage === 'long' ? `field label ${JSON.stringify(label)} not supported for ${JSON.stringify(kind)}` : `field label not supported: ${label}`;
}

/**
 * Build the predicate for a parsed field selector against one kind. Throws a 400 StatusError when a
 * field is not one of the kind's field labels. `gv` is the request's group-version (kept for messages
 * that name it).
 */
export function fieldSelectorMatcher(selector: FieldSelector, strategy: KindStrategy, kind: string, gv: string): (obj: ApiObject) => boolean {
  void gv;
  if (selector.isEmpty()) return () => true;
  // one check per field, its terms folded together: the cost an object is what the kind's field
  // labels number, however many terms a request line holds (thousands of `!=` terms read one by
  // one over 150,000 objects would hold the server for seconds)
  const byField = new Map<string, { read: (obj: ApiObject) => string; equal: string | undefined; contradictory: boolean; notEqual: Set<string> }>();
  for (const t of selector.terms) {
    const read = fieldLabelReader(strategy, t.field);
    if (!read) throw errors.badRequest(unsupportedMessage(strategy, kind, t.field));
    let check = byField.get(t.field);
    if (!check) byField.set(t.field, (check = { read, equal: undefined, contradictory: false, notEqual: new Set() }));
    if (t.operator === '!=') check.notEqual.add(t.value);
    else if (check.equal === undefined) check.equal = t.value;
    else if (check.equal !== t.value) check.contradictory = true;
  }
  const checks = [...byField.values()];
  if (checks.some((c) => c.contradictory)) return () => false;
  return (obj) => {
    for (const c of checks) {
      const v = c.read(obj);
      if (c.equal !== undefined && v !== c.equal) return false;
      if (c.notEqual.size > 0 && c.notEqual.has(v)) return false;
    }
    return true;
  };
}

/** The name when the selector is exactly `metadata.name=X` (lets a list become a single lookup). */
export function exactNameFromFieldSelector(sel: FieldSelector): string | undefined {
  if (sel.terms.length !== 1) return undefined;
  const t = sel.terms[0];
  return t.field === 'metadata.name' && t.operator === '=' ? t.value : undefined;
}
