// The audit log file: one JSON event per line, appended synchronously (an event is on disk, or in the
// kernel's hands, before the request's answer goes on), rotated by size with bounded backups as the
// reference's lumberjack does: `audit-2026-11-25T03-30-00.000.log` beside `audit.log`.
import { closeSync, fstatSync, openSync, readdirSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, extname, join } from 'node:path';

export interface AuditFileOptions {
  /** `-` writes to stdout. */
  path: string;
  /** Megabytes before rotation; 0: never rotate. */
  maxSizeMb: number;
  /** Rotated files kept; 0: all. */
  maxBackups: number;
  /** Days a rotated file is kept; 0: no limit. */
  maxAgeDays: number;
}

export class AuditFile {
  private fd: number | undefined;
  private size = 0;

  constructor(private readonly o: AuditFileOptions) {
    if (o.path !== '-') this.open();
  }

  private open(): void {
    this.fd = openSync(this.o.path, 'a', 0o600);
    this.size = fstatSync(this.fd).size;
  }

  write(event: object): void {
    const line = `${JSON.stringify(event)}\n`;
    if (this.o.path === '-') {
      process.stdout.write(line);
      return;
    }
    if (this.fd === undefined) return; // closed: the server is gone
    const bytes = Buffer.byteLength(line);
    if (this.o.maxSizeMb > 0 && this.size > 0 && this.size + bytes > this.o.maxSizeMb * 1024 * 1024) this.rotate();
    writeSync(this.fd, line);
    this.size += bytes;
  }

  private rotate(): void {
    closeSync(this.fd!);
    const ext = extname(this.o.path);
    const stem = basename(this.o.path, ext);
    const stamp = new Date().toISOString().replace(/:/g, '-').replace(/Z$/, '');
    renameSync(this.o.path, join(dirname(this.o.path), `${stem}-${stamp}${ext}`));
    this.prune(stem, ext);
    this.open();
  }

  /** Rotated files past --audit-log-maxbackup (newest kept) or older than --audit-log-maxage days. */
  private prune(stem: string, ext: string): void {
    const dir = dirname(this.o.path);
    const pattern = new RegExp(`^${stem.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}-\\d{4}-\\d\\d-\\d\\dT\\d\\d-\\d\\d-\\d\\d\\.\\d{3}${ext.replace('.', '\\.')}$`);
    const backups = readdirSync(dir)
      .filter((f) => pattern.test(f))
      .sort()
      .reverse();
    const cutoff = Date.now() - this.o.maxAgeDays * 86_400_000;
    backups.forEach((f, i) => {
      const file = join(dir, f);
      const tooMany = this.o.maxBackups > 0 && i >= this.o.maxBackups;
      const tooOld = this.o.maxAgeDays > 0 && statSync(file).mtimeMs < cutoff;
      if (tooMany || tooOld) unlinkSync(file);
    });
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}
