// Emits committed events strictly in the order their writes were sequenced, even if the commits'
// promises settle in another order. A slot is enqueued when its write is sequenced (inside the
// transaction) and settled when its commit is known; events leave from the head only.
import type { StoreEvent } from '../backend.ts';

export interface EmitSlot {
  event: StoreEvent | undefined;
  settled: boolean;
  /** Resolves once the slot's event (if any) has been handed to the listener. */
  emitted: Promise<void>;
  markEmitted: () => void;
}

export class OrderedEmitter {
  private readonly queue: EmitSlot[] = [];

  constructor(private readonly onEvent: (events: StoreEvent[]) => void) {}

  slot(): EmitSlot {
    let markEmitted = (): void => {};
    const emitted = new Promise<void>((resolve) => (markEmitted = resolve));
    return { event: undefined, settled: false, emitted, markEmitted };
  }

  /** Places the slot at the end of the sequence (again, if a transaction callback is re-run). */
  enqueue(slot: EmitSlot): void {
    const at = this.queue.indexOf(slot);
    if (at >= 0) this.queue.splice(at, 1);
    this.queue.push(slot);
  }

  settle(slot: EmitSlot, event: StoreEvent | undefined): void {
    slot.event = event;
    slot.settled = true;
    if (!this.queue.includes(slot)) slot.markEmitted();
    this.flush();
  }

  private flush(): void {
    const ready: EmitSlot[] = [];
    while (this.queue.length > 0 && this.queue[0]!.settled) ready.push(this.queue.shift()!);
    const events = ready.flatMap((s) => (s.event ? [s.event] : []));
    try {
      if (events.length > 0) this.onEvent(events);
    } finally {
      for (const s of ready) s.markEmitted();
    }
  }
}
