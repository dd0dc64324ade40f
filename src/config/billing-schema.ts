import { z } from 'zod';

/** The `billing` section of the gateway config. */
export const billingConfigSchema = z
  .strictObject({
    /**
     * true: reserve credits before the upstream call and answer 402 when the balance cannot
     * cover the estimate; false: admit regardless (usage is still charged and recorded, so a
     * balance may go below zero).
     */
    enforce: z.boolean().default(true),
    /** Output tokens held when a request names no max_tokens and its model states no maxOutputTokens (docs/billing.md, the hold rule). */
    reserveOutputTokens: z.number().int().positive().default(4096),
    /** Web searches held for a request whose search tool states no `max_uses` (only Anthropic's can; docs/billing.md, the hold rule). */
    reserveWebSearches: z.number().int().nonnegative().default(5),
    /** How often the usage ledger is fdatasync'd in the background, ms (0 = leave it to the OS). */
    ledgerSyncMs: z.number().int().nonnegative().default(1000),
    /**
     * Group commit of the usage ledger, ms (0 = every line its own write): while other requests
     * are in flight, a settled line may wait this long to share one write(2) with theirs; the
     * answer's last bytes wait for it. At most 2.
     */
    ledgerGroupMs: z.number().min(0).max(2).default(2),
    /**
     * A model with no price in the config, its plugin or the bundled catalog: 'free' serves it
     * at no charge (logged at start-up); 'reject' refuses it with 403 model_unpriced.
     */
    unpriced: z.enum(['free', 'reject']).default('free'),
  })
  .prefault({});

export type BillingConfig = z.output<typeof billingConfigSchema>;
export type BillingConfigInput = z.input<typeof billingConfigSchema>;
