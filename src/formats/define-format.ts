import type { FormatDefinition } from './types.ts';

/** Types a wire format's face (see FormatDefinition); returns it unchanged. Register it with `registerFormat` or a plugin's `wireFormats`. */
export function defineFormat<const Definition extends FormatDefinition>(definition: Definition): Definition {
  return definition;
}
