import { Injectable, OnModuleInit, RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { match, type MatchFunction } from 'path-to-regexp';

interface Route {
  method: string;
  matches: MatchFunction<object>;
}

/**
 * The routes our controllers declare, read from their decorators through Nest's discovery API and matched
 * the way Express matches them (path-to-regexp, case-insensitive, optional trailing slash). It tells a path
 * no endpoint serves (404) from one asked with a method it does not take (405, with the methods it does).
 */
@Injectable()
export class RouteTable implements OnModuleInit {
  private routes: Route[] = [];

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly reflector: Reflector,
  ) {}

  onModuleInit(): void {
    this.routes = this.discovery.getControllers().flatMap(({ metatype, instance }) => {
      if (!metatype || !instance) return [];
      const prefixes = pathsOf(this.reflector.get(PATH_METADATA, metatype));
      const prototype = Object.getPrototypeOf(instance) as object;
      return this.scanner.getAllMethodNames(prototype).flatMap((name) => {
        const handler = (prototype as Record<string, () => unknown>)[name];
        const method = this.reflector.get<RequestMethod | undefined>(METHOD_METADATA, handler);
        if (method === undefined) return [];
        const paths = pathsOf(this.reflector.get(PATH_METADATA, handler));
        return prefixes.flatMap((prefix) =>
          paths.map((path) => ({ method: RequestMethod[method], matches: match(joined(prefix, path)) })),
        );
      });
    });
  }

  /** The methods some endpoint takes at this path (HEAD wherever GET is); none for a path nothing serves. */
  methodsFor(path: string): string[] {
    const methods = new Set(this.routes.filter((route) => route.matches(path)).map((route) => route.method));
    if (methods.has('GET')) methods.add('HEAD');
    return [...methods].sort();
  }

  /** Whether an endpoint serves this method at this path. */
  serves(method: string, path: string): boolean {
    return this.methodsFor(path).includes(method.toUpperCase());
  }
}

function pathsOf(metadata: unknown): string[] {
  if (Array.isArray(metadata)) return metadata.map(String);
  return [typeof metadata === 'string' ? metadata : ''];
}

function joined(prefix: string, path: string): string {
  return (
    '/' +
    [prefix, path]
      .flatMap((part) => part.split('/'))
      .filter(Boolean)
      .join('/')
  );
}
