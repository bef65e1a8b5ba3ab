import { buildExtendedCard, buildPublicCard } from './cards';
import { serializeCard } from './card-version';
import { buildExecutionPolicy } from './execution-policy';
import { financeAgentExample } from './fixtures/finance-agent';
import { ProjectionCache } from './projection-cache';
import { buildRouterIndex } from './router-index';
import { given } from './testing/given';

const f = financeAgentExample();
const snapshot = () => given.snapshot(f.manifests);

describe('ProjectionCache', () => {
  it('computes each projection once per entitlement class', () => {
    const cache = new ProjectionCache(snapshot());
    const callers = ['a', 'b', 'c'].map((p) => given.caller({ principal: p, tenant: `tenant-${p}`, scopes: ['recon.run', `own.${p}`] }));
    for (const c of callers) {
      cache.extendedCard(c);
      cache.routerIndex(c);
      cache.executionPolicy(c);
      cache.extendedCardSerialized(c);
    }
    expect(cache.stats.builds).toMatchObject({ extendedCard: 1, routerIndex: 1, executionPolicy: 1, serialized: 1 });
    cache.extendedCard(f.callers.partnerWithoutScope);
    expect(cache.stats.builds.extendedCard).toBe(2);
  });

  it('serves the same values as the pure functions', () => {
    const cache = new ProjectionCache(snapshot());
    expect(cache.publicCard()).toEqual(buildPublicCard(snapshot()));
    expect(cache.publicCardSerialized()).toEqual(serializeCard(buildPublicCard(snapshot())));
    expect(cache.extendedCard(f.callers.partner)).toEqual(buildExtendedCard(snapshot(), f.callers.partner));
    expect(cache.routerIndex(f.callers.partner)).toEqual(buildRouterIndex(snapshot(), f.callers.partner));
    expect(cache.executionPolicy(null)).toEqual(buildExecutionPolicy(snapshot(), null));
    cache.publicCard();
    expect(cache.stats.builds.publicCard).toBe(1);
  });

  it('freezes what it shares between callers', () => {
    const card = new ProjectionCache(snapshot()).extendedCard(f.callers.partner);
    expect(() => card.skills.push(card.skills[0])).toThrow(TypeError);
  });

  it('bounds memory by dropping the oldest class past maxClasses', () => {
    const cache = new ProjectionCache(snapshot(), 1);
    cache.extendedCard(f.callers.partner);
    cache.extendedCard(f.callers.partnerWithoutScope);
    cache.extendedCard(f.callers.partner);
    expect(cache.stats.builds.extendedCard).toBe(3);
  });
});
