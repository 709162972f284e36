import { ConnectorError, foundOrNull, isNotTheUsers, requireOwn } from '../connector-error';
import { lucenePhrase } from '../lucene-phrase';
import type { InvenioApi } from './api';
import type { InvenioRecord } from './entities';

/** A record as the user reads it, draft first; `own` when it is among the user's records (they may edit it). */
export interface ReadRecord {
  record: InvenioRecord;
  own: boolean;
}

/** Whether the user's records hold `id` (one search, since a published record does not say who may edit it). */
async function amongUsers(api: InvenioApi, id: string): Promise<boolean> {
  const page = await api.userRecords({ page: 1, size: 1, q: `id:${lucenePhrase(id)}` });
  return page.hits.hits.some((hit) => hit.id === id);
}

/**
 * The record `id`: its draft when the user may edit it (a new record, a new version, or an open edit of a
 * published one), else its published version, the user's or anyone's public one. When neither can be read,
 * the draft's refusal stands (403: someone else's draft; 404: none).
 */
export async function readRecord(api: InvenioApi, id: string, resourceId: string): Promise<ReadRecord> {
  let refusal: unknown;
  try {
    return { record: await api.draft(id, resourceId), own: true };
  } catch (error) {
    if (!isNotTheUsers(error)) throw error;
    refusal = error;
  }
  let record: InvenioRecord;
  try {
    record = await api.record(id, resourceId);
  } catch (error) {
    throw isNotTheUsers(error) ? refusal : error;
  }
  // a draft refused with 403 is someone else's; without a draft, the user's records tell
  const forbidden = refusal instanceof ConnectorError && refusal.status === 403;
  return { record, own: !forbidden && (await amongUsers(api, id)) };
}

/** The user's record `id`, to change; anyone else's published record answers 403 saying so. */
export async function ownRecord(api: InvenioApi, id: string, resourceId: string): Promise<InvenioRecord> {
  return requireOwn(await readRecord(api, id, resourceId), notTheUsers(id)).record;
}

/** Why someone else's published record cannot be changed. */
export function notTheUsers(id: string): string {
  return `InvenioRDM record ${id} is another user's published record: it can be read and downloaded here, not changed.`;
}

/**
 * How the user `owner` (a user's number, as `parent.access.owned_by.user` gives it) is named: the full name of
 * their profile, else their username, else their number (a profile the instance keeps private).
 */
export async function userNameOf(api: InvenioApi, owner: string | undefined): Promise<string> {
  if (owner === undefined) return 'InvenioRDM user';
  const user = await foundOrNull(api.user(owner));
  return user?.profile?.full_name || user?.username || `InvenioRDM user ${owner}`;
}
