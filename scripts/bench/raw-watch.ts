// A watch stream read straight off a TCP socket, for the watch scenario's client processes. They stand
// in for kubelets and controllers on other machines, yet here they share the server's two cores: the
// less CPU they spend, the less they disturb the latency being measured. node:http allocates a fresh
// 64 KB buffer for every socket read; at some 20,000 reads a second that external memory forced a
// full garbage collection every ~120 ms in each client process. Here every socket reads into one
// buffer shared by the process (`onread`), the chunked framing is undone in place and each complete
// line (one watch event) is handed over as a range of that buffer, valid only during the call.
import net from 'node:net';

/** Called once per event line: bytes [from, to) of `b`, without the newline. */
export type OnLine = (b: Buffer, from: number, to: number) => void;

/** One read buffer per process: callbacks run one at a time and consume it before returning. */
const READ_BUFFER = Buffer.allocUnsafe(256 * 1024);
const CR = 13;
const NL = 10;
/** A response head or a chunk-size line longer than this is not the server under test. */
const MAX_HEAD = 16 * 1024;

const enum State {
  Head,
  ChunkSize,
  ChunkData,
  ChunkEnd,
  Done,
}

class ChunkedLines {
  state = State.Head;
  /** Bytes still to come of the current chunk (State.ChunkData). */
  remaining = 0;
  /** The unfinished head or chunk-size line, carried between reads. */
  textCarry: Buffer | undefined;
  /** The unfinished event line, carried across reads and chunks (a size line may come between). */
  carry: Buffer | undefined;

  constructor(
    private readonly onLine: OnLine,
    private readonly onHead: (status: number) => void,
  ) {}

  /** Consume b[0, n). Returns false when the response is malformed (the caller closes). */
  feed(b: Buffer, n: number): boolean {
    let i = 0;
    while (i < n) {
      switch (this.state) {
        case State.Head: {
          const end = this.takeLine(b, i, n);
          if (end < 0) return this.carryLength() <= MAX_HEAD;
          const line = this.lineText(b, i, end);
          i = end + 1;
          if (line.startsWith('HTTP/')) this.onHead(Number(line.split(' ')[1]));
          else if (line === '') this.state = State.ChunkSize;
          break;
        }
        case State.ChunkSize: {
          const end = this.takeLine(b, i, n);
          if (end < 0) return this.carryLength() <= MAX_HEAD;
          const size = parseInt(this.lineText(b, i, end), 16);
          i = end + 1;
          if (!Number.isFinite(size)) return false;
          if (size === 0) {
            this.state = State.Done;
            return true;
          }
          this.remaining = size;
          this.state = State.ChunkData;
          break;
        }
        case State.ChunkData: {
          const to = Math.min(n, i + this.remaining);
          this.lines(b, i, to);
          this.remaining -= to - i;
          i = to;
          if (this.remaining === 0) this.state = State.ChunkEnd;
          break;
        }
        case State.ChunkEnd: {
          // the CRLF after a chunk's data
          if (b[i] === NL) this.state = State.ChunkSize;
          else if (b[i] !== CR) return false;
          i++;
          break;
        }
        case State.Done:
          return true;
      }
    }
    return true;
  }

  /**
   * The index of the newline ending the head or chunk-size line that starts at b[from], or -1 after
   * carrying the unfinished part (lineText joins it back).
   */
  private takeLine(b: Buffer, from: number, to: number): number {
    const nl = b.indexOf(NL, from);
    if (nl >= 0 && nl < to) return nl;
    this.textCarry = this.textCarry ? Buffer.concat([this.textCarry, b.subarray(from, to)]) : Buffer.from(b.subarray(from, to));
    return -1;
  }

  private carryLength(): number {
    return this.textCarry?.length ?? 0;
  }

  /** A head or chunk-size line, joined with what was carried, without its CR. */
  private lineText(b: Buffer, from: number, nl: number): string {
    let s = b.toString('latin1', from, nl);
    if (this.textCarry) {
      s = this.textCarry.toString('latin1') + s;
      this.textCarry = undefined;
    }
    return s.endsWith('\r') ? s.slice(0, -1) : s;
  }

  /** Event lines in chunk data b[from, to): whole ones in place, a split one joined first. */
  private lines(b: Buffer, from: number, to: number): void {
    let start = from;
    if (this.carry) {
      const nl = b.indexOf(NL, from);
      if (nl < 0 || nl >= to) {
        this.carry = Buffer.concat([this.carry, b.subarray(from, to)]);
        return;
      }
      const joined = Buffer.concat([this.carry, b.subarray(from, nl)]);
      this.carry = undefined;
      this.onLine(joined, 0, joined.length);
      start = nl + 1;
    }
    let nl: number;
    while (start < to && (nl = b.indexOf(NL, start)) >= 0 && nl < to) {
      this.onLine(b, start, nl);
      start = nl + 1;
    }
    if (start < to) this.carry = Buffer.from(b.subarray(start, to));
  }
}

/**
 * GET `path` from the server at `url` (http://host:port) as a watch and hand each event line to
 * `onLine`. Resolves once the status line is read (rejects on a status other than 200 or a connect
 * error); `onEnd` runs once when an accepted stream ends, for any reason.
 */
export function openRawWatch(url: string, path: string, onLine: OnLine, onEnd: () => void): Promise<void> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    let settled = false;
    let streaming = false;
    const parser = new ChunkedLines(onLine, (status) => {
      settled = true;
      streaming = status === 200;
      if (streaming) resolve();
      else {
        reject(new Error(`${path}: HTTP ${status}`));
        socket.destroy();
      }
    });
    const socket = net.connect({
      host: hostname,
      port: Number(port),
      onread: {
        buffer: READ_BUFFER,
        callback: (n: number, buf: Uint8Array) => {
          if (!parser.feed(buf as Buffer, n)) socket.destroy();
          return true;
        },
      },
    });
    socket.on('connect', () => socket.write(`GET ${path} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAccept: application/json\r\n\r\n`));
    socket.on('error', (err) => {
      if (!settled) reject(err);
    });
    socket.on('close', () => {
      if (!settled) reject(new Error(`${path}: closed before a response`));
      if (streaming) onEnd();
    });
  });
}
