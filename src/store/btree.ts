// sorted-btree is CommonJS with `exports.default = BTree`; under ESM the class sits on `.default` of the
// default import. Re-export it typed.
import btreeModule from 'sorted-btree';

export const BTree: typeof btreeModule.default = btreeModule.default;
export type BTree<K, V> = btreeModule.default<K, V>;
