import type { ConversationTurn } from '../types.ts';

/**
 * The conversations held for a turn in this process (the file store's one process is the only
 * one that reads and adds to them): a hold lasts until released, it never lapses.
 */
export class InProcessTurns {
  /** `account` NUL `id` of each conversation held. */
  private readonly held = new Set<string>();

  /** The hold of `id` for one turn, or `busy` while another turn holds it. */
  claim(accountId: string, id: string): ConversationTurn | 'busy' {
    const key = `${accountId}\u0000${id}`;
    if (this.held.has(key)) return 'busy';
    this.held.add(key);
    let released = false;
    return {
      release: async () => {
        if (released) return;
        released = true;
        this.held.delete(key);
      },
    };
  }
}
