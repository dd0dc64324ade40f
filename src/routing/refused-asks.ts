/** How long a provider's refusal of an ask is remembered: an organization may be verified later. */
const REMEMBER_MS = 60 * 60 * 1000;

/**
 * Asks a provider refused for its account, not for a request (OpenAI's reasoning summaries for
 * an organization it has not verified: the format face's `fit.withoutRefused`), by provider: the
 * next converted calls leave them out at once instead of being refused again first. Forgotten
 * after an hour, so an organization verified meanwhile gets its summaries back. A model's own
 * refusal (Gemini's token log probabilities) is kept under its `provider/model` id instead (the
 * same map: provider ids have no `/`).
 */
export class RefusedAsks {
  private readonly byProvider = new Map<string, Map<string, number>>();

  constructor(private readonly now: () => number) {}

  remember(providerId: string, param: string): void {
    let asks = this.byProvider.get(providerId);
    if (!asks) this.byProvider.set(providerId, (asks = new Map()));
    asks.set(param, this.now() + REMEMBER_MS);
  }

  /** The params the provider refused within the hour (none, on nearly every call: no allocation then). */
  of(providerId: string): readonly string[] {
    const asks = this.byProvider.get(providerId);
    if (!asks) return NONE;
    const now = this.now();
    const refused: string[] = [];
    for (const [param, until] of asks) {
      if (until > now) refused.push(param);
      else asks.delete(param);
    }
    if (asks.size === 0) this.byProvider.delete(providerId);
    return refused;
  }
}

const NONE: readonly string[] = Object.freeze([]);
