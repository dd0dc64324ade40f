/** Why OpenAI's Chat Completions would refuse a body, in its words (a 400), so the mock refuses it too. */
export interface ChatRefusal {
  message: string;
  param: string;
  code: string;
}

type Json = Record<string, unknown>;

const ROLES = ['system', 'assistant', 'user', 'function', 'tool', 'developer'];

/** OpenAI's numeric bounds: [field, least, most, integer]. */
const BOUNDS: ReadonlyArray<readonly [string, number, number, boolean]> = [
  ['temperature', 0, 2, false],
  ['top_p', 0, 1, false],
  ['presence_penalty', -2, 2, false],
  ['frequency_penalty', -2, 2, false],
  ['n', 1, 128, true],
];

function outOfBounds(body: Json): ChatRefusal | undefined {
  for (const [field, least, most, integer] of BOUNDS) {
    const value = body[field];
    if (typeof value !== 'number') continue;
    const kind = integer ? 'integer' : 'decimal';
    if (value > most) return { message: `Invalid '${field}': ${kind} above maximum value. Expected a value <= ${most}, but got ${value} instead.`, param: field, code: `${kind}_above_max_value` };
    if (value < least) return { message: `Invalid '${field}': ${kind} below minimum value. Expected a value >= ${least}, but got ${value} instead.`, param: field, code: `${kind}_below_min_value` };
  }
  return undefined;
}

function unknownRole(messages: Json[]): ChatRefusal | undefined {
  const index = messages.findIndex((m) => !ROLES.includes(m.role as string));
  if (index === -1) return undefined;
  const supported = `${ROLES.slice(0, -1).map((r) => `'${r}'`).join(', ')}, and '${ROLES[ROLES.length - 1]}'`;
  return { message: `Invalid value: '${String(messages[index].role)}'. Supported values are: ${supported}.`, param: `messages[${index}].role`, code: 'invalid_value' };
}

/** The first thing in a readable Chat body (messages an array of objects) that OpenAI refuses, or undefined. */
export function checkChatRequest(body: Json): ChatRefusal | undefined {
  return outOfBounds(body) ?? unknownRole(body.messages as Json[]);
}
