import { setting, Settings } from '@app/config';

/** What an uploaded zip may hold (zip bombs): entries, decompressed bytes, compression ratio. */
export class ZipLimits extends Settings('Uploaded zips', {
  maxEntries: setting.int('MAX_ZIP_ENTRIES', {
    min: 1,
    default: 100_000,
    doc: 'most entries (files and folders) an uploaded zip may hold',
  }),
  maxTotalBytes: setting.int('MAX_ZIP_BYTES', {
    min: 1,
    default: 50 * 2 ** 30,
    shownDefault: '`53687091200` (50 GiB)',
    doc: "most bytes an uploaded zip's entries may add up to once decompressed",
  }),
  maxRatio: setting.int('MAX_ZIP_RATIO', {
    min: 2,
    default: 200,
    doc: 'highest decompressed/compressed size ratio, of one entry or of the whole zip, above 1 MiB',
  }),
}) {}

/** How deep and how long a path written at a target may be (docs/limits.md#path-limits). */
export class PathLimits extends Settings('Paths', {
  maxDepth: setting.int('MAX_PATH_DEPTH', {
    min: 1,
    default: 64,
    doc: 'how deep a path an upload or transfer writes at a target may be (`a/b/c.txt` is 3 deep); deeper, 400',
  }),
  maxBytes: setting.int('MAX_PATH_BYTES', {
    min: 1,
    default: 1024,
    doc: 'how long, in UTF-8 bytes, a path an upload or transfer writes at a target may be; longer, 400',
  }),
}) {}
