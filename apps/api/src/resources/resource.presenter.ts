import type { ResourceDetail, ResourceSummary } from '@app/connectors';
import type { Target } from '@app/targets';
import type { Link, Links } from '../common/link-builder';

/** Turns connector resources into the API's shapes, with absolute links. */
export class ResourcePresenter {
  constructor(
    private readonly links: Links,
    private readonly target: Target,
  ) {}

  /** `/api_v1/targets/<t>/resources/<id>` plus `suffix`, as an absolute URL */
  resourceUrl(id: string, suffix: string): string {
    return this.links.resourceUrl(this.target.name, id, suffix);
  }

  summary(resource: ResourceSummary) {
    return {
      kind: resource.kind,
      kind_name: resource.kindName,
      id: resource.id,
      container: resource.container,
      title: resource.title,
      links: this.target.supports('resource_detail')
        ? [{ name: 'Detail', link: this.resourceUrl(resource.id, '/'), method: 'GET' } satisfies Link]
        : [],
    };
  }

  /** In place of a detail the target failed to give: the resource's id and links, and what went wrong. */
  unavailable(id: string, error: string) {
    const detailLink = this.resourceUrl(id, '/');
    return {
      kind: 'item',
      kind_name: 'unavailable',
      id,
      identifier: detailLink,
      title: `${this.target.entry.readable_name} could not give this resource's detail`,
      error,
      children: [],
      links: [{ name: 'Detail', link: detailLink, method: 'GET' } satisfies Link],
      actions: [],
    };
  }

  detail(resource: ResourceDetail) {
    const links: Link[] = [{ name: 'Detail', link: this.resourceUrl(resource.id, '/'), method: 'GET' }];
    if (this.target.supports('resource_download')) {
      links.push({ name: 'Download', link: this.resourceUrl(resource.id, '.zip/'), method: 'GET' });
    }
    if (resource.kind === 'container' && !resource.readOnly) {
      if (this.target.supports('resource_upload')) {
        links.push({ name: 'Upload', link: this.resourceUrl(resource.id, '/'), method: 'POST' });
      }
      if (this.target.supports('resource_transfer_in')) {
        links.push({ name: 'Transfer', link: this.resourceUrl(resource.id, '/'), method: 'POST' });
      }
    }
    return {
      kind: resource.kind,
      kind_name: resource.kindName,
      id: resource.id,
      // what FAIR services are asked about: the resource's lasting address here (docs/behaviour.md#links)
      identifier: this.resourceUrl(resource.id, '/'),
      title: resource.title,
      date_created: resource.dateCreated,
      date_modified: resource.dateModified,
      hashes: resource.hashes,
      extra: resource.extra,
      children: resource.children.map((child) => this.summary(child)),
      links,
      actions: this.target.supports('resource_transfer_out') ? ['Transfer'] : [],
    };
  }
}
