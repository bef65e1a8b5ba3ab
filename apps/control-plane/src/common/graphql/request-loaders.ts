import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { GqlExecutionContext } from '@nestjs/graphql';
import DataLoader from 'dataloader';

/**
 * DataLoaders of one GraphQL request. A feature asks for its loader by a key naming the loader
 * AND the scope it batches under (e.g. `usage:agent-1:2026-11-01..2026-11-30`), so two scopes in
 * one request never share a cache entry; the registry lives on the request context and dies with it.
 */
export class RequestLoaders {
  private readonly loaders = new Map<string, DataLoader<unknown, unknown>>();

  get<K, V, C = K>(key: string, batch: DataLoader.BatchLoadFn<K, V>, options?: DataLoader.Options<K, V, C>): DataLoader<K, V, C> {
    let loader = this.loaders.get(key) as DataLoader<K, V, C> | undefined;
    if (!loader) {
      loader = new DataLoader<K, V, C>(batch, options);
      this.loaders.set(key, loader);
    }
    return loader;
  }
}

/** The request's RequestLoaders (resolver parameter). */
export const Loaders = createParamDecorator((_data: unknown, context: ExecutionContext): RequestLoaders => {
  return GqlExecutionContext.create(context).getContext<{ loaders: RequestLoaders }>().loaders;
});
