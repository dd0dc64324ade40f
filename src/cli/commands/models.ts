import type { Command } from 'commander';
import { withAdmin } from '../admin-client.ts';
import { resolveContext } from '../context.ts';
import { print, printJson, printTable } from '../format-table.ts';

type Pricing = Record<string, string> | null;

/** A USD figure without float noise (`0.15`, `2.5`, `0.000075`). */
function usd(value: number): string {
  return String(Number(value.toPrecision(6)));
}

/** A per-token USD string (OpenRouter style) as USD per million tokens; '-' when absent. */
function perMillion(pricing: Pricing, key: string): string {
  const value = pricing?.[key];
  return value === undefined ? '-' : usd(Number(value) * 1_000_000);
}

/** Per-item media prices, e.g. `0.04/image`, `15/1M chars`, `0.006/min`, `0.1/s` (of video or music), `0.05/job`. */
function mediaPrice(pricing: Pricing): string {
  if (!pricing) return '-';
  const parts: string[] = [];
  if (pricing.image !== undefined) parts.push(`${usd(Number(pricing.image))}/image`);
  if (pricing.audio_minute !== undefined) parts.push(`${usd(Number(pricing.audio_minute))}/min`);
  if (pricing.speech_character !== undefined) parts.push(`${usd(Number(pricing.speech_character) * 1_000_000)}/1M chars`);
  if (pricing.per_second !== undefined) parts.push(`${usd(Number(pricing.per_second))}/s`);
  if (pricing.per_job !== undefined) parts.push(`${usd(Number(pricing.per_job))}/job`);
  return parts.join(', ') || '-';
}

/** 128000 → 128k, 1047576 → 1.05M. */
function contextSize(value: unknown): string {
  if (typeof value !== 'number') return '-';
  if (value >= 1_000_000) return `${Number((value / 1_000_000).toPrecision(3))}M`;
  if (value >= 1000) return `${Number((value / 1000).toPrecision(3))}k`;
  return String(value);
}

/** gateway models ls: type, context, USD per million input/output tokens, media prices; unpriced models marked. */
export async function listModelsCommand(cmd: Command, opts: { json?: boolean }): Promise<void> {
  const ctx = await resolveContext(cmd);
  const models = await withAdmin(ctx, (admin) => admin.models.list.query(), { readOnly: true });
  if (opts.json) return printJson(models);
  const rows = models.map((m) => {
    const pricing = m.pricing as Pricing;
    const media = mediaPrice(pricing);
    // A media model priced per item only: its zero token prices say nothing.
    const perItemOnly = media !== '-' && Number(pricing?.prompt) === 0 && Number(pricing?.completion) === 0;
    return [
      String(m.id),
      String(m.type),
      contextSize(m.context_length),
      pricing ? (perItemOnly ? '-' : perMillion(pricing, 'prompt')) : 'UNPRICED',
      perItemOnly ? '-' : perMillion(pricing, 'completion'),
      media,
      (m.capabilities as string[]).join(','),
    ];
  });
  // On a terminal: the free text cut, then the columns after the prices left out; the id stays whole.
  printTable(['ID', 'TYPE', 'CONTEXT', 'INPUT $/1M', 'OUTPUT $/1M', 'MEDIA $', 'CAPABILITIES'], rows, { shrink: ['CAPABILITIES', 'TYPE'], drop: ['CAPABILITIES', 'CONTEXT', 'MEDIA $'] });
  // A provider whose models include '*' (an aggregator) serves any id pinned to it, which no list can show.
  for (const [id, provider] of Object.entries(ctx.config.providers)) {
    if (provider.enabled === false || !(provider.models ?? []).some((m) => m === '*')) continue;
    print(`\nAny other model id pinned to provider '${id}' is served too (its models include '*'): ask for ${id}/<model id>, e.g. ${id}/google/gemini-2.5-pro.`);
  }
  const unpriced = models.filter((m) => m.pricing === null).length;
  if (unpriced === 0) return;
  const policy = ctx.config.billing.unpriced;
  const what = policy === 'reject' ? 'requests to them are refused' : 'they are served free';
  print(`\n${unpriced} unpriced model(s): ${what} (billing.unpriced: '${policy}'); give them pricing in the config.`);
}
