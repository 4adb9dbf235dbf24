// sorted-btree is CommonJS with `exports.default = BTree`; under ESM the class sits on `.default` of the
// default import. Re-export it typed.
import btreeModule from 'sorted-btree';

export const BTree: typeof btreeModule.default = btreeModule.default;
export type BTree<K, V> = btreeModule.default<K, V>;

/**
 * A tree of string keys in code-unit order: the order the library's default comparator gives strings,
 * without its checks for numbers, mixed types and NaN on every comparison of every get and set.
 */
export function stringKeyTree<V>(): BTree<string, V> {
  return new BTree<string, V>(undefined, btreeModule.simpleComparator as (a: string, b: string) => number);
}
