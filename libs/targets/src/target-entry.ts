import type { HashAlgorithm, SearchFilter } from '@app/connectors';

export const TARGET_ACTIONS = [
  'resource_collection',
  'resource_detail',
  'resource_download',
  'resource_upload',
  'resource_transfer_in',
  'resource_transfer_out',
  'keywords',
  'keywords_upload',
] as const;
export type TargetAction = (typeof TARGET_ACTIONS)[number];

/** One entry of the targets file (docs/targets-file.md). */
export interface TargetEntry {
  name: string;
  readable_name: string;
  status_url: string;
  token_url: string;
  supported_actions: Record<TargetAction, boolean>;
  supported_transfer_partners: { transfer_in: string[]; transfer_out: string[] };
  supported_hash_algorithms: HashAlgorithm[];
  infinite_depth: boolean;
  search_parameters: SearchFilter[];
  connector: string;
  options: Record<string, unknown>;
}
