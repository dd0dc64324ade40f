/** Where a config file failed to parse (1-based line and column) and why. */
export interface SyntaxPosition {
  file: string;
  line: number;
  column: number;
  message: string;
}

/** 1-based line and column of a character offset in `text`. */
function positionOf(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, Math.max(0, Math.min(offset, text.length)));
  const lines = before.split('\n');
  return { line: lines.length, column: lines[lines.length - 1].length + 1 };
}

function firstLine(message: string): string {
  return (message.split('\n').find((line) => line.trim() !== '') ?? message).trim();
}

/**
 * The position of a syntax error thrown while loading `file`: jiti's ParseError (TS/JS,
 * `file:line:col` in its message), js-yaml's mark, a JSON position, or — for an error thrown
 * while the config module runs — its first stack frame in the file. Undefined otherwise.
 */
export function describeSyntaxError(error: unknown, file: string | undefined, read: (file: string) => string): SyntaxPosition | undefined {
  if (!(error instanceof Error)) return undefined;
  const message = error.message;
  const target = (error as { filepath?: string }).filepath ?? file;

  // jiti (babel): "ParseError: Unexpected token, expected \",\"\n /path/gateway.config.ts:3:2"
  const located = /^\s*(\S.*?):(\d+):(\d+)\s*$/m.exec(message.split('\n').slice(1).join('\n'));
  if (located) {
    const reason = firstLine(message).replace(/^(ParseError|SyntaxError):\s*/, '');
    return { file: located[1], line: Number(located[2]), column: Number(located[3]), message: `syntax error: ${reason}` };
  }

  // js-yaml: mark is 0-based
  const mark = (error as { mark?: { line?: number; column?: number }; reason?: string }).mark;
  if (target && mark && typeof mark.line === 'number' && typeof mark.column === 'number') {
    const reason = (error as { reason?: string }).reason ?? firstLine(message);
    return { file: target, line: mark.line + 1, column: mark.column + 1, message: `syntax error: ${reason}` };
  }

  // JSON: "… in JSON at position 48" (Node 20) or "(line 3 column 17)" (Node 22+)
  if (target && (error.name === 'JSONError' || /in JSON at position/.test(message))) {
    const lineCol = /\(line (\d+) column (\d+)\)/.exec(message);
    const offset = /at position (\d+)/.exec(message);
    const reason = (/^\s*((?:Unexpected|Expected|Bad|Unterminated|Exponent)[^\n]*?) in JSON at position/m.exec(message)?.[1] ?? 'invalid JSON').trim();
    if (lineCol) return { file: target, line: Number(lineCol[1]), column: Number(lineCol[2]), message: `syntax error: ${reason}` };
    if (offset) {
      try {
        return { file: target, ...positionOf(read(target), Number(offset[1])), message: `syntax error: ${reason}` };
      } catch {
        return undefined;
      }
    }
  }

  // An error thrown while the config module runs: its frame in the config file.
  if (target && error.stack) {
    const escaped = target.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const frame = new RegExp(`${escaped}:(\\d+):(\\d+)`).exec(error.stack);
    if (frame) return { file: target, line: Number(frame[1]), column: Number(frame[2]), message: `${error.name}: ${firstLine(message)}` };
  }
  return undefined;
}
