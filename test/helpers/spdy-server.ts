// A minimal SPDY/3.1 server side for the stand-in kubelet: enough framing for kubectl's streams
// (remotecommand and portforward over Go's spdystream). Control frames SYN_STREAM, SYN_REPLY,
// RST_STREAM, SETTINGS, PING, GOAWAY (WINDOW_UPDATE read and ignored: the tests move a few bytes,
// far below the 64 KiB initial window); DATA with FIN for half-close. Header blocks are zlib with
// SPDY/3's dictionary, one compression context per direction for the connection's life.
import { EventEmitter } from 'node:events';
import type { Duplex } from 'node:stream';
import { constants, createDeflate, createInflate, type Deflate, type Inflate } from 'node:zlib';

/** SPDY/3's header dictionary: length-prefixed header names and words, then a run of common values. */
const DICTIONARY = (() => {
  const words = ('options head post put delete trace accept accept-charset accept-encoding accept-language accept-ranges age allow ' +
    'authorization cache-control connection content-base content-encoding content-language content-length content-location ' +
    'content-md5 content-range content-type date etag expect expires from host if-match if-modified-since if-none-match ' +
    'if-range if-unmodified-since last-modified location max-forwards pragma proxy-authenticate proxy-authorization range ' +
    'referer retry-after server te trailer transfer-encoding upgrade user-agent vary via warning www-authenticate method get ' +
    'status 200_OK version HTTP/1.1 url public set-cookie keep-alive origin').split(' ').map((w) => w.replace('_', ' '));
  const codes = '100101201202205206300302303304305306307402405406407408409410411412413414415416417502504505';
  const phrases = '203 Non-Authoritative Information204 No Content301 Moved Permanently400 Bad Request401 Unauthorized' +
    '403 Forbidden404 Not Found500 Internal Server Error501 Not Implemented503 Service Unavailable';
  const dates = 'Jan Feb Mar Apr May Jun Jul Aug Sept Oct Nov Dec 00:00:00 Mon, Tue, Wed, Thu, Fri, Sat, Sun, GMT';
  const values = 'chunked,text/html,image/png,image/jpg,image/gif,application/xml,application/xhtml+xml,text/plain,' +
    'text/javascript,publicprivatemax-age=gzip,deflate,sdchcharset=utf-8charset=iso-8859-1,utf-,*,enq=0.';
  const parts = words.map((w) => {
    const b = Buffer.alloc(4 + w.length);
    b.writeUInt32BE(w.length, 0);
    b.write(w, 4, 'latin1');
    return b;
  });
  const dict = Buffer.concat([...parts, Buffer.from(codes + phrases + dates + values, 'latin1')]);
  if (dict.length !== 1423) throw new Error(`SPDY/3 dictionary is ${dict.length} bytes, not 1423`);
  return dict;
})();

const VERSION = 3;
const SYN_STREAM = 1;
const SYN_REPLY = 2;
const RST_STREAM = 3;
const PING = 6;
const GOAWAY = 7;
const FLAG_FIN = 1;
const MAX_FRAME = 1 << 20;
const MAX_HEADERS = 64;

/** A stream the client opened: its headers (names lowercased), its data, and our half of it. */
export interface SpdyStream extends EventEmitter {
  readonly id: number;
  readonly headers: Map<string, string>;
  /** Send bytes to the client on this stream. */
  write(data: Buffer | string): void;
  /** Half-close our side (DATA with FIN). */
  end(data?: Buffer | string): void;
  /** 'data' (Buffer) for each DATA frame, 'end' when the client half-closes, 'reset' on RST_STREAM. */
  on(event: 'data', listener: (chunk: Buffer) => void): this;
  on(event: 'end' | 'reset', listener: () => void): this;
}

/** Run zlib on one header block with a sync flush, so the block stands alone while the context carries on. */
function pass(z: Deflate | Inflate, input: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const out: Buffer[] = [];
    const onData = (c: Buffer) => out.push(c);
    const onError = (e: Error) => reject(e);
    z.on('data', onData);
    z.once('error', onError);
    z.write(input);
    z.flush(constants.Z_SYNC_FLUSH, () => {
      z.off('data', onData);
      z.off('error', onError);
      resolve(Buffer.concat(out));
    });
  });
}

function decodeHeaders(block: Buffer): Map<string, string> {
  const headers = new Map<string, string>();
  let at = 0;
  const u32 = () => {
    if (at + 4 > block.length) throw new Error('short header block');
    at += 4;
    return block.readUInt32BE(at - 4);
  };
  const str = () => {
    const n = u32();
    if (at + n > block.length) throw new Error('short header block');
    at += n;
    return block.toString('latin1', at - n, at);
  };
  const count = u32();
  if (count > MAX_HEADERS) throw new Error('too many headers');
  for (let i = 0; i < count; i++) {
    const name = str().toLowerCase();
    headers.set(name, str());
  }
  return headers;
}

function encodeHeaders(headers: Record<string, string>): Buffer {
  const parts: Buffer[] = [];
  const u32 = (n: number) => {
    const b = Buffer.alloc(4);
    b.writeUInt32BE(n);
    parts.push(b);
  };
  const entries = Object.entries(headers);
  u32(entries.length);
  for (const [k, v] of entries) {
    for (const s of [k.toLowerCase(), v]) {
      u32(Buffer.byteLength(s));
      parts.push(Buffer.from(s));
    }
  }
  return Buffer.concat(parts);
}

function control(type: number, flags: number, body: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt16BE(0x8000 | VERSION, 0);
  head.writeUInt16BE(type, 2);
  head.writeUInt32BE(body.length, 4);
  head[4] = flags;
  return Buffer.concat([head, body]);
}

function dataFrame(id: number, flags: number, body: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(id & 0x7fffffff, 0);
  head.writeUInt32BE(body.length, 4);
  head[4] = flags;
  return Buffer.concat([head, body]);
}

/**
 * Speak SPDY/3.1 as the server on `socket` (already past the HTTP upgrade). Each stream the client
 * opens is answered with an empty SYN_REPLY and handed to `onStream`.
 */
export function serveSpdy(socket: Duplex, onStream: (stream: SpdyStream) => void): void {
  const deflate = createDeflate({ dictionary: DICTIONARY });
  const inflate = createInflate({ dictionary: DICTIONARY });
  const streams = new Map<number, SpdyStream>();
  // frames leave in order even though compressing a header block is asynchronous
  let outQueue: Promise<unknown> = Promise.resolve();
  const send = (make: () => Buffer | Promise<Buffer>) => {
    outQueue = outQueue.then(async () => {
      const frame = await make();
      if (!socket.destroyed) socket.write(frame);
    }).catch(() => socket.destroy());
  };
  const fail = () => {
    for (const s of streams.values()) s.emit('reset');
    streams.clear();
    socket.destroy();
  };

  const open = (id: number, headers: Map<string, string>, fin: boolean) => {
    const stream = new EventEmitter() as SpdyStream;
    let ended = false;
    Object.assign(stream, {
      id,
      headers,
      write(data: Buffer | string) {
        if (!ended) send(() => dataFrame(id, 0, Buffer.from(data)));
      },
      end(data?: Buffer | string) {
        if (ended) return;
        ended = true;
        send(() => dataFrame(id, FLAG_FIN, Buffer.from(data ?? '')));
      },
    });
    streams.set(id, stream);
    send(async () => {
      const block = await pass(deflate, encodeHeaders({}));
      const body = Buffer.alloc(4);
      body.writeUInt32BE(id);
      return control(SYN_REPLY, 0, Buffer.concat([body, block]));
    });
    onStream(stream);
    if (fin) stream.emit('end');
  };

  const handle = async (frame: Buffer) => {
    const flags = frame[4];
    const body = frame.subarray(8);
    if (!(frame[0] & 0x80)) {
      const stream = streams.get(frame.readUInt32BE(0) & 0x7fffffff);
      if (!stream) return;
      if (body.length) stream.emit('data', Buffer.from(body));
      if (flags & FLAG_FIN) stream.emit('end');
      return;
    }
    const type = frame.readUInt16BE(2);
    if (type === SYN_STREAM) {
      if (body.length < 10) throw new Error('short SYN_STREAM');
      const id = body.readUInt32BE(0) & 0x7fffffff;
      // the header block must be inflated even for a stream we refuse: the context runs on
      const headers = decodeHeaders(await pass(inflate, body.subarray(10)));
      open(id, headers, (flags & FLAG_FIN) !== 0);
    } else if (type === RST_STREAM) {
      const id = body.readUInt32BE(0) & 0x7fffffff;
      streams.get(id)?.emit('reset');
      streams.delete(id);
    } else if (type === PING) {
      send(() => frame);
    } else if (type === GOAWAY) {
      socket.end();
    }
    // SETTINGS, WINDOW_UPDATE, HEADERS: nothing the stand-in needs to act on
  };

  let pending = Buffer.alloc(0);
  let inQueue: Promise<unknown> = Promise.resolve();
  socket.on('data', (chunk: Buffer) => {
    pending = Buffer.concat([pending, chunk]);
    while (pending.length >= 8) {
      const length = pending.readUInt32BE(4) & 0xffffff;
      if (length > MAX_FRAME) return fail();
      if (pending.length < 8 + length) break;
      const frame = pending.subarray(0, 8 + length);
      pending = pending.subarray(8 + length);
      inQueue = inQueue.then(() => handle(frame)).catch(fail);
    }
  });
  socket.on('close', () => {
    for (const s of streams.values()) s.emit('reset');
    streams.clear();
    deflate.close();
    inflate.close();
  });
  socket.on('error', () => socket.destroy());
}
