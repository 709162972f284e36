import { Readable } from 'node:stream';

/**
 * `size` bytes of `block` over and over (the last time cut short), made as they are read: a stream of gigabytes
 * with nothing on disk and no memory that grows.
 */
export function repeatedBlock(block: Buffer, size: number): Readable {
  return Readable.from(
    (function* () {
      for (let left = size; left > 0; left -= block.length)
        yield block.subarray(0, Math.min(left, block.length));
    })(),
  );
}

/**
 * Checks what a reader got, chunk by chunk in order, byte for byte against `block` repeated as repeatedBlock
 * makes it: each byte against the byte of the block at its place, much cheaper than hashing both sides.
 */
export class RepeatedBlockCheck {
  /** the bytes seen so far */
  read = 0;
  /** whether every byte seen so far is the one at its place */
  same = true;

  constructor(private readonly block: Buffer) {}

  add(chunk: Buffer): void {
    for (let at = 0; at < chunk.length;) {
      const offset = (this.read + at) % this.block.length;
      const length = Math.min(chunk.length - at, this.block.length - offset);
      this.same &&= chunk.subarray(at, at + length).equals(this.block.subarray(offset, offset + length));
      at += length;
    }
    this.read += chunk.length;
  }
}
