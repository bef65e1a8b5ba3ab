/** Extra readiness checks an app contributes (PostgreSQL for apps that use it). */
export interface ReadinessProbe {
  name: string;
  check: () => Promise<void>;
}
export const ReadinessProbes = Symbol('READINESS_PROBES');
