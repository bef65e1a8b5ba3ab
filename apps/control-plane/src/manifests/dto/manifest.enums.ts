/**
 * The GraphQL enums of a manifest's state and visibility, registered once. Apart from the models so
 * that other features' models (deprecation's impact) can use them without an import cycle (issue 29).
 */
import { registerEnumType } from '@nestjs/graphql';
import { CAPABILITY_STATES, VISIBILITIES, type CapabilityState, type Visibility } from '@cp/capabilities';

export const CapabilityStateEnum = Object.fromEntries(CAPABILITY_STATES.map((s) => [s, s])) as Record<CapabilityState, CapabilityState>;
export const VisibilityEnum = Object.fromEntries(VISIBILITIES.map((v) => [v, v])) as Record<Visibility, Visibility>;
registerEnumType(CapabilityStateEnum, { name: 'CapabilityState' });
registerEnumType(VisibilityEnum, { name: 'Visibility' });
