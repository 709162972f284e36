import { crc32 } from 'node:zlib';
// the module object itself, which the packages hold: an `import *` is a read-only copy of it
// eslint-disable-next-line @typescript-eslint/no-require-imports
import crc32Js = require('crc-32');

/**
 * archiver (through zip-stream, compress-commons and crc32-stream), which makes a Dataverse upload's zip,
 * computes every zip entry's CRC-32 with the `crc-32` package, in JavaScript. Node's zlib.crc32 computes the same value natively, several times faster (bench/). The packages call
 * `buf` on the module object each time, so replacing it there reaches them all. crc-32 answers a signed
 * 32-bit value, zlib an unsigned one; the seed is the previous value in either form.
 */
crc32Js.buf = (data, seed = 0) => crc32(Array.isArray(data) ? Uint8Array.from(data) : data, seed >>> 0) | 0;
