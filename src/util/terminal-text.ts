/**
 * Characters a terminal acts on instead of showing: C0 and C1 controls (ESC starts a sequence
 * that can clear the screen, set the title or fake output), DEL, the bidi marks, overrides and
 * isolates (which reorder what follows), and lone surrogates (half a character).
 */
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const WHITESPACE = /^\s$/;

/**
 * Text as one safe terminal line. Clients write the prompts, models and ids the CLI and TUI
 * print, so whitespace controls become a space and every other unsafe character a visible U+FFFD.
 */
export function terminalText(text: string): string {
  return text.replace(UNSAFE, (c) => (WHITESPACE.test(c) ? ' ' : '\uFFFD'));
}
