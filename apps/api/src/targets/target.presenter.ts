import type { Target } from '@app/targets';
import type { Link, Links } from '../common/link-builder';

/** A target as the API shows it: the targets-file fields without `connector` and `options` (which may hold secrets). */
export function presentTarget(target: Target, links: Link[]) {
  const { connector: _connector, options: _options, ...fields } = target.entry;
  return { ...fields, links };
}

export function targetLinks(links: Links, target: Target, view: 'collection' | 'detail'): Link[] {
  const path = `/api_v1/targets/${target.name}/`;
  if (view === 'collection') return [{ name: 'Detail', link: links.url(path), method: 'GET' }];
  const resources = links.url(`${path}resources/`);
  const shown: Link[] = [];
  if (target.supports('resource_collection'))
    shown.push({ name: 'Collection', link: resources, method: 'GET' });
  if (target.supports('resource_upload')) shown.push({ name: 'Upload', link: resources, method: 'POST' });
  if (target.supports('resource_transfer_in'))
    shown.push({ name: 'Transfer', link: resources, method: 'POST' });
  return shown;
}
