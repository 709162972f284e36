import { setting, Settings } from '@app/config';

/** The threads that hash beside the main thread. */
export class HashingSettings extends Settings('Hashing', {
  threads: setting.int('HASH_THREADS', {
    min: 1,
    max: 16,
    default: 1,
    doc: "threads that hash whole files (source checksums, read-backs, an uploaded bag's stored files before the 202); more gained nothing on 2 cores",
  }),
}) {}
