import type { WebSearchTool } from '../../ir/index.ts';
import { isRecord } from './json.ts';

/** A web-search tool's approximate location (`{city, region, country, timezone}`, any of them), as every vendor writes it. */
export function decodeSearchLocation(value: unknown): WebSearchTool['userLocation'] | undefined {
  if (!isRecord(value)) return undefined;
  const location: NonNullable<WebSearchTool['userLocation']> = {};
  for (const key of ['city', 'region', 'country', 'timezone'] as const) if (typeof value[key] === 'string') location[key] = value[key];
  return location;
}

/** A non-empty list of domains, else undefined. */
export function decodeDomains(value: unknown): string[] | undefined {
  return Array.isArray(value) && value.length > 0 && value.every((entry) => typeof entry === 'string') ? (value as string[]) : undefined;
}
