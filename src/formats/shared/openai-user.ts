import { createHash } from 'node:crypto';

/** The longest `user` OpenAI's Chat Completions and Responses accept ("Invalid 'user': string too long"). */
export const OPENAI_USER_MAX = 64;

/**
 * The `user` an OpenAI-format upstream is sent for a converted request: as given when it fits,
 * else its sha256 in hex (64 characters), so a longer id (Claude Code's `metadata.user_id` is a
 * ~150-character JSON text) is still one stable id per user instead of a 400 on every request.
 */
export function openaiUser(user: string | undefined): string | undefined {
  if (user === undefined || user.length <= OPENAI_USER_MAX) return user;
  return createHash('sha256').update(user).digest('hex');
}
