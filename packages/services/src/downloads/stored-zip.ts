import fs from 'node:fs/promises';
import { Readable } from 'node:stream';
import { crc32 } from 'node:zlib';

/**
 * A zip whose entries are stored (not compressed), written as it is read: the writer behind a
 * pack's download. Why not zip-stream/archiver (used before): for a stream source they always pipe
 * the bytes through a CRC-32 stream in JavaScript (the `crc-32` package, ~500 MB/s) and three
 * stream layers, even when the CRC is already known. Here an entry whose CRC-32 the catalogue
 * holds (taken at intake) costs only reading its file: its local header carries the CRC and size,
 * as `zip -0` writes them, and each header goes out in the same buffer as the file's first bytes.
 * An entry without a known CRC (a sound older than the column) gets it computed on the way with
 * Node's native `zlib.crc32` and written after the data in a data descriptor. ZIP64 records are
 * written when an offset, a size or the number of entries needs them (APPNOTE.TXT 4.3, 4.5.3).
 */

export interface ZipEntry {
  /** The name inside the zip (UTF-8). */
  name: string;
  /** The entry's bytes, when small and in memory (the readme)… */
  data?: Buffer;
  /** …or the absolute path of the file to store. */
  file?: string;
  /** The file's CRC-32 when known; otherwise computed while the file is read. */
  crc32?: number | null;
}

export interface StoredZipOptions {
  /** A file that cannot be opened is left out and reported here (instead of failing the zip). */
  onMissing?: (entry: ZipEntry) => void;
  /** Bytes read from a file at a time. */
  chunkBytes?: number;
  /** The entries' modification time (default: now). */
  date?: Date;
}

const LOCAL_HEADER = 0x04034b50;
const DATA_DESCRIPTOR = 0x08074b50;
const CENTRAL_HEADER = 0x02014b50;
const END_OF_CENTRAL = 0x06054b50;
const ZIP64_END = 0x06064b50;
const ZIP64_LOCATOR = 0x07064b50;
const FLAG_DATA_DESCRIPTOR = 0x0008;
const FLAG_UTF8 = 0x0800;
const MAX32 = 0xffffffff;
const MAX16 = 0xffff;
/** Version needed to extract: 2.0 (data descriptors), 4.5 (ZIP64). Made by: Unix. */
const VERSION_20 = 20;
const VERSION_45 = 45;
const MADE_BY_UNIX = 3 << 8;
/** -rw-r--r-- regular file, in the high half of the external attributes (Unix). */
const FILE_MODE = 0o100644;

interface Written {
  name: Buffer;
  crc: number;
  size: number;
  offset: number;
  flags: number;
}

/** The zip of `entries`, in their order, as a byte stream (one file open at a time). */
export function storedZip(
  entries: Iterable<ZipEntry> | AsyncIterable<ZipEntry>,
  options: StoredZipOptions = {},
): Readable {
  return Readable.from(zipChunks(entries, options), { objectMode: false, highWaterMark: 1 });
}

async function* zipChunks(
  entries: Iterable<ZipEntry> | AsyncIterable<ZipEntry>,
  options: StoredZipOptions,
): AsyncGenerator<Buffer> {
  const chunkBytes = options.chunkBytes ?? 1024 * 1024;
  const { time, date } = dosDateTime(options.date ?? new Date());
  const written: Written[] = [];
  let offset = 0;
  for await (const entry of entries) {
    const name = Buffer.from(entry.name, 'utf8');
    if (entry.data) {
      const crc = entry.crc32 ?? crc32(entry.data);
      const w: Written = { name, crc, size: entry.data.length, offset, flags: FLAG_UTF8 };
      const header = localHeader(w, time, date);
      written.push(w);
      offset += header.length + entry.data.length;
      yield Buffer.concat([header, entry.data]);
      continue;
    }
    const handle = entry.file ? await fs.open(entry.file, 'r').catch(() => undefined) : undefined;
    if (!handle) {
      options.onMissing?.(entry);
      continue;
    }
    try {
      const stat = await handle.stat();
      if (!stat.isFile()) {
        options.onMissing?.(entry);
        continue;
      }
      const known = entry.crc32 != null;
      const w: Written = {
        name,
        crc: known ? (entry.crc32 as number) >>> 0 : 0,
        size: stat.size,
        offset,
        flags: FLAG_UTF8 | (known ? 0 : FLAG_DATA_DESCRIPTOR),
      };
      written.push(w);
      // The header travels in the buffer of the file's first bytes: one write, not two.
      let head: Buffer | undefined = localHeader(w, time, date);
      offset += head.length;
      let crc = 0;
      for (let position = 0; position < w.size || head; ) {
        const want = Math.min(chunkBytes, w.size - position);
        const prefix = head?.length ?? 0;
        const buffer = Buffer.allocUnsafeSlow(prefix + want);
        if (head) head.copy(buffer);
        head = undefined;
        let filled = 0;
        while (filled < want) {
          const { bytesRead } = await handle.read(buffer, prefix + filled, want - filled, position + filled);
          // Shorter than its size on opening: the stream fails rather than end in a broken entry.
          if (bytesRead === 0)
            throw new Error(`${entry.name} ended ${w.size - position - filled} bytes early`);
          filled += bytesRead;
        }
        if (!known) crc = crc32(buffer.subarray(prefix), crc);
        position += want;
        offset += want;
        yield buffer;
      }
      if (!known) {
        w.crc = crc >>> 0;
        const descriptor = dataDescriptor(w);
        offset += descriptor.length;
        yield descriptor;
      }
    } finally {
      await handle.close();
    }
  }
  yield centralDirectory(written, offset, time, date);
}

/** Whether an entry needs ZIP64 sizes (its own size) or a ZIP64 offset in the central directory. */
const bigSize = (w: Written) => w.size >= MAX32;

function localHeader(w: Written, time: number, date: number): Buffer {
  const zip64 = bigSize(w);
  const descriptor = (w.flags & FLAG_DATA_DESCRIPTOR) !== 0;
  const extra = zip64 ? 20 : 0;
  const b = Buffer.alloc(30 + w.name.length + extra);
  b.writeUInt32LE(LOCAL_HEADER, 0);
  b.writeUInt16LE(zip64 ? VERSION_45 : VERSION_20, 4);
  b.writeUInt16LE(w.flags, 6);
  b.writeUInt16LE(0, 8); // stored
  b.writeUInt16LE(time, 10);
  b.writeUInt16LE(date, 12);
  // With a data descriptor the CRC and sizes follow the data (zero here, as the format says).
  b.writeUInt32LE(descriptor ? 0 : w.crc, 14);
  const size32 = zip64 ? MAX32 : descriptor ? 0 : w.size;
  b.writeUInt32LE(size32, 18);
  b.writeUInt32LE(size32, 22);
  b.writeUInt16LE(w.name.length, 26);
  b.writeUInt16LE(extra, 28);
  w.name.copy(b, 30);
  if (zip64) {
    const at = 30 + w.name.length;
    b.writeUInt16LE(0x0001, at);
    b.writeUInt16LE(16, at + 2);
    b.writeBigUInt64LE(BigInt(descriptor ? 0 : w.size), at + 4);
    b.writeBigUInt64LE(BigInt(descriptor ? 0 : w.size), at + 12);
  }
  return b;
}

function dataDescriptor(w: Written): Buffer {
  const zip64 = bigSize(w);
  const b = Buffer.alloc(zip64 ? 24 : 16);
  b.writeUInt32LE(DATA_DESCRIPTOR, 0);
  b.writeUInt32LE(w.crc, 4);
  if (zip64) {
    b.writeBigUInt64LE(BigInt(w.size), 8);
    b.writeBigUInt64LE(BigInt(w.size), 16);
  } else {
    b.writeUInt32LE(w.size, 8);
    b.writeUInt32LE(w.size, 12);
  }
  return b;
}

function centralDirectory(written: readonly Written[], start: number, time: number, date: number): Buffer {
  const parts: Buffer[] = [];
  let size = 0;
  for (const w of written) {
    // ZIP64 extra: only the fields whose 32-bit slot overflows, in this order.
    const wide: number[] = [];
    if (bigSize(w)) wide.push(w.size, w.size);
    if (w.offset >= MAX32) wide.push(w.offset);
    const extra = wide.length ? 4 + 8 * wide.length : 0;
    const b = Buffer.alloc(46 + w.name.length + extra);
    b.writeUInt32LE(CENTRAL_HEADER, 0);
    const version = wide.length ? VERSION_45 : VERSION_20;
    b.writeUInt16LE(MADE_BY_UNIX | version, 4);
    b.writeUInt16LE(version, 6);
    b.writeUInt16LE(w.flags, 8);
    b.writeUInt16LE(0, 10);
    b.writeUInt16LE(time, 12);
    b.writeUInt16LE(date, 14);
    b.writeUInt32LE(w.crc, 16);
    b.writeUInt32LE(Math.min(w.size, MAX32), 20);
    b.writeUInt32LE(Math.min(w.size, MAX32), 24);
    b.writeUInt16LE(w.name.length, 28);
    b.writeUInt16LE(extra, 30);
    // comment length, disk number, internal attributes: 0
    b.writeUInt32LE(FILE_MODE * 0x10000, 38);
    b.writeUInt32LE(Math.min(w.offset, MAX32), 42);
    w.name.copy(b, 46);
    if (extra) {
      let at = 46 + w.name.length;
      b.writeUInt16LE(0x0001, at);
      b.writeUInt16LE(8 * wide.length, at + 2);
      at += 4;
      for (const value of wide) {
        b.writeBigUInt64LE(BigInt(value), at);
        at += 8;
      }
    }
    parts.push(b);
    size += b.length;
  }
  const count = written.length;
  const end = start + size;
  if (count >= MAX16 || size >= MAX32 || start >= MAX32) {
    const record = Buffer.alloc(56);
    record.writeUInt32LE(ZIP64_END, 0);
    record.writeBigUInt64LE(44n, 4); // the record's size after this field
    record.writeUInt16LE(MADE_BY_UNIX | VERSION_45, 12);
    record.writeUInt16LE(VERSION_45, 14);
    // this disk, the central directory's disk: 0
    record.writeBigUInt64LE(BigInt(count), 24);
    record.writeBigUInt64LE(BigInt(count), 32);
    record.writeBigUInt64LE(BigInt(size), 40);
    record.writeBigUInt64LE(BigInt(start), 48);
    const locator = Buffer.alloc(20);
    locator.writeUInt32LE(ZIP64_LOCATOR, 0);
    locator.writeBigUInt64LE(BigInt(end), 8);
    locator.writeUInt32LE(1, 16); // disks in all
    parts.push(record, locator);
  }
  const eocd = Buffer.alloc(22);
  eocd.writeUInt32LE(END_OF_CENTRAL, 0);
  eocd.writeUInt16LE(Math.min(count, MAX16), 8);
  eocd.writeUInt16LE(Math.min(count, MAX16), 10);
  eocd.writeUInt32LE(Math.min(size, MAX32), 12);
  eocd.writeUInt32LE(Math.min(start, MAX32), 16);
  parts.push(eocd);
  return Buffer.concat(parts);
}

/** MS-DOS time and date (local fields, two-second resolution, 1980 onwards). */
function dosDateTime(d: Date): { time: number; date: number } {
  const year = Math.max(1980, d.getFullYear());
  return {
    time: (d.getHours() << 11) | (d.getMinutes() << 5) | (d.getSeconds() >> 1),
    date: ((year - 1980) << 9) | ((d.getMonth() + 1) << 5) | d.getDate(),
  };
}
