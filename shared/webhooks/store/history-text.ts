/**
 * The delivery history stores the request it POSTed and the receiver's answer as text. Text of
 * a few hundred bytes or more is stored brotli-compressed (a Binary attribute): DynamoDB bills a
 * write per started kilobyte of the item, and a 1 KB notification's record (its request plus
 * ~400 bytes of keys and fields) would cost 2 write units as text and 1 compressed (issue 23,
 * bench figure 12). Quality 6 compresses a 1 KB notification to about half in ~0.1 ms; the
 * slower qualities save a few more bytes for ten times the CPU.
 */
import { brotliCompressSync, brotliDecompressSync, constants } from 'node:zlib';

/** Shorter text is stored as it is: its record fits a write unit anyway. */
export const COMPRESS_FROM_BYTES = 256;
const QUALITY = 6;

/** Stored text: as it is, or its UTF-8 bytes brotli-compressed. */
export type PackedText = string | Uint8Array;

/** `text` compressed when it is long enough and compression saves at least a tenth. */
export function packText(text: string): PackedText {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length < COMPRESS_FROM_BYTES) return text;
  const packed = brotliCompressSync(bytes, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: QUALITY,
      [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
      [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
    },
  });
  return packed.length <= bytes.length * 0.9 ? new Uint8Array(packed) : text;
}

export function unpackText(stored: PackedText): string {
  return typeof stored === 'string' ? stored : brotliDecompressSync(stored).toString('utf8');
}

export function isPacked(value: unknown): value is Uint8Array {
  return value instanceof Uint8Array;
}
