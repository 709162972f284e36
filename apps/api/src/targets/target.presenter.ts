import type { Request } from 'express';
import type { Target } from '@app/targets';
import type { Link, LinkBuilder } from '../common/link-builder';

/** A target as the API shows it: the targets-file fields without `connector` and `options` (which may hold secrets). */
export function presentTarget(target: Target, links: Link[]) {
  const { connector: _connector, options: _options, ...fields } = target.entry;
  return { ...fields, links };
}

export function targetLinks(
  builder: LinkBuilder,
  request: Request,
  target: Target,
  view: 'collection' | 'detail',
): Link[] {
  const path = `/api_v1/targets/${target.name}/`;
  if (view === 'collection') return [{ name: 'Detail', link: builder.url(request, path), method: 'GET' }];
  const resources = builder.url(request, `${path}resources/`);
  const links: Link[] = [];
  if (target.supports('resource_collection'))
    links.push({ name: 'Collection', link: resources, method: 'GET' });
  if (target.supports('resource_upload')) links.push({ name: 'Upload', link: resources, method: 'POST' });
  if (target.supports('resource_transfer_in'))
    links.push({ name: 'Transfer', link: resources, method: 'POST' });
  return links;
}
