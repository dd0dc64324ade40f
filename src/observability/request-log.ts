import { createRequire } from 'node:module';
import path from 'node:path';
import type pinoModule from 'pino';
import type { RecordConsumer, RequestRecord } from './request-record.ts';

/** Rounds to a hundredth of a millisecond (log lines, not measurements). */
function ms(value: number | undefined): number | null {
  return value === undefined ? null : Math.round(value * 100) / 100;
}

/** The request log's line for a record: ids, routing, status, usage, cost and timings; never prompt or completion text. */
export function requestLogLine(record: RequestRecord): Record<string, unknown> {
  return {
    request_id: record.requestId,
    started_at: new Date(record.time).toISOString(),
    account_id: record.accountId ?? null,
    key_id: record.keyId ?? null,
    route: record.route,
    api_format: record.apiFormat || null,
    model: record.requestedModel ?? null,
    resolved_model: record.model ?? null,
    provider: record.provider ?? null,
    stream: record.stream,
    status: record.status,
    error_code: record.errorCode ?? null,
    input_tokens: record.inputTokens ?? null,
    output_tokens: record.outputTokens ?? null,
    web_search_requests: record.webSearchRequests ?? null,
    cost_credits: record.costCredits ?? null,
    charged_credits: record.chargedCredits ?? null,
    hold_credits: record.heldCredits ?? null,
    duration_ms: ms(record.durationMs),
    ttfb_ms: ms(record.ttfbMs ?? (record.stream ? undefined : record.durationMs)),
    attempts: record.attempts,
    fallback: record.fallback !== undefined,
    fallback_from: record.fallback?.from ?? null,
    fallback_reason: record.fallback?.reason ?? null,
    adapted: record.adapted ?? null,
    dropped_tools: record.droppedTools ?? null,
  };
}

/**
 * `logging.requests`: one JSON line per request (pino) to stdout or a file (relative paths
 * from `baseDir`). Lines go through pino's asynchronous destination: the request path only
 * formats the line, the write happens later; `close` flushes what is pending.
 */
export function createRequestLog(target: string, baseDir: string): RecordConsumer {
  // Loaded only when a request log is configured (off by default): a few MB of resident memory otherwise.
  const pino = createRequire(import.meta.url)('pino') as typeof pinoModule;
  const toStdout = target === 'stdout';
  const destination = pino.destination({ dest: toStdout ? 1 : path.resolve(baseDir, target), sync: false, mkdir: true, minLength: 0, mode: 0o600 });
  const logger = pino(
    {
      base: null,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    destination,
  );
  return {
    consume(record: RequestRecord): void {
      if (record.internal) return;
      logger.info(requestLogLine(record));
    },
    close(): Promise<void> {
      return new Promise<void>((resolve) => {
        if (toStdout) {
          destination.flush(() => resolve());
          return;
        }
        destination.once('close', () => resolve());
        destination.once('error', () => resolve());
        destination.end();
      });
    },
  };
}
