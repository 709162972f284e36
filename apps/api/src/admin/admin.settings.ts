import { setting, Settings } from '@app/config';

/** The queue dashboard's credential. */
export class AdminSettings extends Settings('Queue dashboard', {
  token: setting.text('ADMIN_TOKEN', {
    minLength: 16,
    secret: true,
    doc: 'opens the queue dashboard at `/admin/queues` (at least 16 characters); unset: no dashboard',
  }),
}) {}
