// Links inside proxied HTML pages, rewritten as the reference's proxy transport does: a page served
// by a pod or node links to `/x`, which the browser must fetch through this server's proxy path.
// Only HTML is touched, and only bodies we can read (identity or gzip); anything else streams as is.
import type { Readable, Transform } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { Transform as TransformStream } from 'node:stream';
import { createGunzip, createGzip } from 'node:zlib';
import { RewritingStream } from 'parse5-html-rewriting-stream';

/** The attributes that hold URLs, by element (the reference's list, from the HTML 4 and 5 specs). */
const LINK_ATTRIBUTES: Readonly<Record<string, readonly string[]>> = {
  a: ['href'],
  applet: ['codebase'],
  area: ['href'],
  audio: ['src'],
  base: ['href'],
  blockquote: ['cite'],
  body: ['background'],
  button: ['formaction'],
  command: ['icon'],
  del: ['cite'],
  embed: ['src'],
  form: ['action'],
  frame: ['longdesc', 'src'],
  head: ['profile'],
  html: ['manifest'],
  iframe: ['longdesc', 'src'],
  img: ['longdesc', 'src', 'usemap'],
  input: ['src', 'usemap', 'formaction'],
  ins: ['cite'],
  link: ['href'],
  object: ['classid', 'codebase', 'data', 'usemap'],
  q: ['cite'],
  script: ['src'],
  source: ['src'],
  video: ['poster', 'src'],
};

/** Whether a response body is an HTML page whose encoding we can read and write back. */
export function rewritableHtml(contentType: unknown, contentEncoding: unknown): boolean {
  if (typeof contentType !== 'string' || !/^text\/html\b/i.test(contentType.trim())) return false;
  const enc = typeof contentEncoding === 'string' ? contentEncoding.trim().toLowerCase() : '';
  return enc === '' || enc === 'identity' || enc === 'gzip';
}

/** Bytes to UTF-8 text for the tokenizer (which reads strings only), multi-byte characters kept whole. */
function utf8Text(): Transform {
  const decoder = new StringDecoder('utf8');
  return new TransformStream({
    // the readable side hands on strings: the tokenizer throws on anything else
    encoding: 'utf8',
    decodeStrings: true,
    transform(chunk: Buffer, _enc, done) {
      done(null, decoder.write(chunk));
    },
    flush(done) {
      done(null, decoder.end());
    },
  });
}

/**
 * Characters of a page whose links are rewritten; the rest passes as written. The tokenizer costs
 * about 0.4 µs a character on this server's thread (a 20 MB page held it for 8 s), more for one
 * token that never ends (an attribute or a text run: it is kept whole, and a 100 MB one took 75 s),
 * and a gzip body makes a page of a GB from a MB. Links past this point keep the backend's paths.
 */
export const MAX_REWRITTEN_HTML = 1024 * 1024;

/** parse5's rewriter, what it writes out collected as it is made (not through its readable side). */
class CollectingRewriter extends RewritingStream {
  private out = '';
  override push(chunk: unknown, encoding?: BufferEncoding): boolean {
    if (typeof chunk !== 'string') return super.push(chunk, encoding);
    this.out += chunk;
    return true;
  }

  /** What it wrote out since the last call. */
  written(): string {
    const out = this.out;
    this.out = '';
    return out;
  }
}

/**
 * The link rewriter over a bounded prefix of the page: text in, text out. It feeds the tokenizer
 * (parse5's RewritingStream, read synchronously) and notes how far the source has been written out
 * token by token; past `limit` characters it writes the source from there on as it came.
 */
class BoundedLinkRewriter extends TransformStream {
  private readonly rewriter = new CollectingRewriter();
  /** Characters given to the tokenizer. */
  private fed = 0;
  /** Source offset through which every token has been written out. */
  private writtenTo = 0;
  /** The source from `heldFrom` on (what a switch to pass-through writes as it came). */
  private held: string[] = [];
  private heldFrom = 0;
  private passing = false;

  constructor(rewrite: (url: string) => string, private readonly limit: number) {
    super({ decodeStrings: false, encoding: 'utf8' });
    const done = (token: { sourceCodeLocation?: { endOffset: number } | null }): void => {
      if (token.sourceCodeLocation) this.writtenTo = token.sourceCodeLocation.endOffset;
    };
    this.rewriter.on('startTag', (tag) => {
      const names = Object.hasOwn(LINK_ATTRIBUTES, tag.tagName) ? LINK_ATTRIBUTES[tag.tagName] : undefined;
      if (names) for (const attr of tag.attrs) if (names.includes(attr.name)) attr.value = rewrite(attr.value);
      this.rewriter.emitStartTag(tag);
      done(tag);
    });
    for (const event of ['endTag', 'comment', 'doctype', 'text'] as const) {
      this.rewriter.on(event, (token: { sourceCodeLocation?: { endOffset: number } | null }, raw: string) => {
        this.rewriter.emitRaw(raw);
        done(token);
      });
    }
  }

  /** Lets go of held chunks wholly before `offset` (written out). */
  private letGo(offset: number): void {
    while (this.held.length > 0 && this.heldFrom + this.held[0].length <= offset) this.heldFrom += this.held.shift()!.length;
  }

  /** The held source from `offset` on. */
  private sourceFrom(offset: number): string {
    this.letGo(offset);
    return this.held.join('').slice(offset - this.heldFrom);
  }

  override _transform(chunk: string, _enc: BufferEncoding, callback: (err?: Error | null, data?: string) => void): void {
    if (this.passing) return callback(null, chunk);
    this.fed += chunk.length;
    this.held.push(chunk);
    // tokenized at once (nothing else writes to it); were it later, writtenTo would lag and the
    // switch below would still write every character once, as rewritten or as it came
    this.rewriter.write(chunk);
    const out = this.rewriter.written();
    if (this.fed <= this.limit) {
      this.letGo(this.writtenTo);
      return callback(null, out || undefined);
    }
    // past the limit: what the tokenizer holds unfinished goes out as it came, and so does the rest
    this.passing = true;
    const rest = this.sourceFrom(this.writtenTo);
    this.held = [];
    this.rewriter.destroy();
    callback(null, out + rest || undefined);
  }

  override _flush(callback: (err?: Error | null, data?: string) => void): void {
    if (this.passing) return callback();
    this.rewriter.once('error', callback);
    this.rewriter.once('finish', () => callback(null, this.rewriter.written() || undefined));
    this.rewriter.end();
  }
}

/**
 * The stages a page goes through: (gunzip), text, link rewriting, (gzip). `rewrite` maps one URL
 * attribute value; the rest of the page is passed through as written.
 */
export function htmlLinkStages(contentEncoding: unknown, rewrite: (url: string) => string, limit = MAX_REWRITTEN_HTML): Array<Transform | Readable> {
  const rewriter = new BoundedLinkRewriter(rewrite, limit);
  const gzip = typeof contentEncoding === 'string' && contentEncoding.trim().toLowerCase() === 'gzip';
  return gzip ? [createGunzip(), utf8Text(), rewriter, createGzip()] : [utf8Text(), rewriter];
}
