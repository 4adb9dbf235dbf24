// Custom AssemblyScript runtime for the policy engine.
//
// Why: the OPA WebAssembly ABI owns the heap. The SDK reads the heap pointer after loading data
// (opa_heap_ptr_get) and resets it before every evaluation (opa_heap_ptr_set / opa_eval's heap
// argument). Making the bump allocator's offset *be* that pointer turns the SDK's reset into a free
// arena: an evaluation allocates freely and everything is dropped at once. Nothing is ever freed
// individually, and there is no garbage collector.

// @ts-ignore: decorator
@global let heapOffset: usize = (__heap_base + 15) & ~15;

// @ts-ignore: decorator
@global @inline
function ensureMemory(end: usize): void {
  let have = <usize>memory.size() << 16;
  if (end > have) {
    let pages = <i32>(((end - have + 0xffff) & ~0xffff) >>> 16);
    // Grow at least by the current size (amortised doubling), fall back to what is needed.
    if (memory.grow(max(pages, memory.size())) < 0) {
      if (memory.grow(pages) < 0) unreachable();
    }
  }
}

// @ts-ignore: decorator
@global @unsafe
function __alloc(size: usize): usize {
  let ptr = heapOffset;
  let end = (ptr + size + 7) & ~7;
  ensureMemory(end);
  heapOffset = end;
  return ptr;
}

// @ts-ignore: decorator
@global @unsafe
function __realloc(ptr: usize, size: usize): usize {
  let n = __alloc(size);
  memory.copy(n, ptr, size);
  return n;
}

// @ts-ignore: decorator
@global @unsafe
function __free(ptr: usize): void {}

// Managed objects are not used by the engine; these keep the compiler's contract (header of 20 bytes).
// @ts-ignore: decorator
@global @unsafe
function __new(size: usize, id: u32): usize {
  let p = __alloc(size + 20) + 20;
  store<u32>(p - 8, id);
  store<u32>(p - 4, <u32>size);
  return p;
}

// @ts-ignore: decorator
@global @unsafe
function __renew(oldPtr: usize, size: usize): usize {
  let n = __alloc(size + 20) + 20;
  memory.copy(n - 20, oldPtr - 20, 20 + <usize>load<u32>(oldPtr - 4));
  store<u32>(n - 4, <u32>size);
  return n;
}

// @ts-ignore: decorator
@global @unsafe
function __link(parentPtr: usize, childPtr: usize, expectMultiple: bool): void {}

// @ts-ignore: decorator
@global @unsafe
function __pin(ptr: usize): usize { return ptr; }

// @ts-ignore: decorator
@global @unsafe
function __unpin(ptr: usize): void {}

// @ts-ignore: decorator
@global @unsafe
function __visit(ptr: usize, cookie: u32): void {}

// @ts-ignore: decorator
@global @unsafe
function __collect(): void {}
