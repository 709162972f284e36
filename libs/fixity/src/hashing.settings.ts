import { setting, Settings } from '@app/config';

/** The threads that hash beside the main thread. */
export class HashingSettings extends Settings('Hashing', {
  threads: setting.int('HASH_THREADS', {
    min: 1,
    max: 16,
    default: 2,
    doc: "hashing threads (streamed bytes, whole files, fs to fs copies, an uploaded bag's stored files), at most the cores; each about 9 MiB",
  }),
}) {}
