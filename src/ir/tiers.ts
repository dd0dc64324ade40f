/** The subscription tiers of spec §8.1, lowest first: the one place they are spelled out. */
export const TIERS = ['free', 'basic', 'fellow', 'pro', 'enterprise'] as const;

/** A subscription tier (spec §8.1). */
export type Tier = (typeof TIERS)[number];
