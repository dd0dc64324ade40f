import type { WireFormat } from '../ir/types.ts';
import { chatCodec } from './chat/index.ts';
import { messagesCodec } from './messages/index.ts';
import { responsesCodec } from './responses/index.ts';
import type { FormatCodec } from './types.ts';

/** Every wire format the gateway speaks; a fourth format is one folder and one line here. */
const CODECS: Record<WireFormat, FormatCodec> = {
  chat: chatCodec,
  messages: messagesCodec,
  responses: responsesCodec,
};

export function getCodec(format: WireFormat): FormatCodec {
  return CODECS[format];
}

export const WIRE_FORMATS = Object.keys(CODECS) as WireFormat[];
