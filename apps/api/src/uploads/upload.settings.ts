import { setting, Settings } from '@app/config';

/** How large an upload may be, and how many the API inspects at once. */
export class UploadSettings extends Settings('Uploads', {
  maxBytes: setting.int('MAX_UPLOAD_BYTES', {
    min: 1,
    default: 10 * 2 ** 30,
    shownDefault: '`10737418240` (10 GiB)',
    doc: 'largest upload (413 above it)',
  }),
  inspections: setting.int('UPLOAD_INSPECTIONS', {
    min: 1,
    max: 64,
    default: 2,
    doc: 'packages one API process inspects at once (each reads the whole zip and its manifests); more wait their turn',
  }),
}) {}
