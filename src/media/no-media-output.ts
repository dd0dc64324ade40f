import { hasMark } from '../util/index.ts';

const MARK = Symbol.for('gateway.media.no-output');

/**
 * A provider's answer that holds none of what was asked (an OpenAI-compatible `{"data": []}`,
 * speech without a byte): the provider's failure, which the exchange answers 502 naming the
 * provider and what it did not return, nothing charged. A result its call cannot read at all
 * (a plugin that broke the media contract) stays a TypeError.
 */
export class NoMediaOutput extends TypeError {
  readonly [MARK] = true;

  /** `missing`: what the provider returned none of, as the client's message says it ("images", "audio"). */
  constructor(readonly missing: string) {
    super(`a media result with no ${missing}`);
  }
}

/** True for a NoMediaOutput, recognised by its mark. */
export function isNoMediaOutput(value: unknown): value is NoMediaOutput {
  return hasMark(value, MARK);
}
