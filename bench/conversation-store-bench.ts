/**
 * The file store's conversations as they grow (the embedded default): N appends of one K kB item
 * each (a conversation built turn by turn), then items-list pages (first page, a page from the
 * middle by `after`), the same page from a repo opened afresh (its first read of the file), and a
 * turn's read of the whole history. Reports time per append (first and last tenth), per page, and
 * the longest event-loop block seen in each phase (perf_hooks.monitorEventLoopDelay).
 * Run by hand: `N=200 K=100 nice -n 19 node --import tsx bench/conversation-store-bench.ts`
 * (BUDGET_S stops the appends after that many seconds and says how far they got).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { FileConversationsRepo } from '../src/store/file/file-conversations-repo.ts';

const N = Number(process.env.N ?? 200);
const K = Number(process.env.K ?? 100);
const BUDGET_MS = Number(process.env.BUDGET_S ?? 120) * 1000;
const ACCOUNT = 'acct_bench';
const ID = 'conv_bench';

type Repo = FileConversationsRepo;
type PageQuery = { limit: number; after?: string; order: 'asc' | 'desc' };

/** One page as the items route reads it: the repo's page when it has one, else every item and a slice (the layout before). */
async function pageOf(repo: Repo, query: PageQuery): Promise<{ ids: string[]; hasMore: boolean }> {
  const paged = repo as unknown as { page?: (a: string, id: string, q: PageQuery) => Promise<{ data: Array<Record<string, unknown>>; hasMore: boolean } | undefined> };
  if (paged.page) {
    const page = await paged.page(ACCOUNT, ID, query);
    return { ids: page!.data.map((item) => item.id as string), hasMore: page!.hasMore };
  }
  const items = (await repo.items(ACCOUNT, ID))!;
  const ordered = query.order === 'asc' ? items : [...items].reverse();
  const start = query.after === undefined ? 0 : ordered.findLastIndex((item) => item.id === query.after) + 1 || ordered.length;
  const data = ordered.slice(start, start + query.limit);
  return { ids: data.map((item) => item.id as string), hasMore: start + data.length < ordered.length };
}

function item(n: number): { id: string; item: string } {
  const id = `msg_${n}`;
  return { id, item: JSON.stringify({ type: 'message', id, status: 'completed', role: 'user', content: [{ type: 'input_text', text: 'x'.repeat(K * 1024) }] }) };
}

/** Runs `work` and reports its time and the longest event-loop block while it ran. */
async function phase<T>(work: () => Promise<T>): Promise<{ value: T; ms: number; blockMs: number }> {
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  histogram.enable();
  const started = performance.now();
  const value = await work();
  const ms = performance.now() - started;
  // A block at the very end is recorded when the monitor's timer next runs: let it run before stopping.
  await new Promise((resolve) => setTimeout(resolve, 5));
  histogram.disable();
  return { value, ms, blockMs: histogram.max / 1e6 };
}

const fmt = (ms: number) => `${ms.toFixed(1)} ms`;

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-conv-bench-'));
  try {
    const repo = new FileConversationsRepo(dir);
    await repo.create({ id: ID, accountId: ACCOUNT, createdAt: Date.now(), metadata: {} }, []);
    const times: number[] = [];
    const appends = await phase(async () => {
      const started = performance.now();
      for (let n = 0; n < N && performance.now() - started < BUDGET_MS; n += 1) {
        const t0 = performance.now();
        await repo.append(ACCOUNT, ID, [item(n)]);
        times.push(performance.now() - t0);
      }
    });
    await repo.flush();
    const done = times.length;
    const tenth = Math.max(1, Math.floor(done / 10));
    const mean = (list: number[]) => list.reduce((sum, value) => sum + value, 0) / list.length;
    const size = fs.statSync(path.join(dir, 'conversations', `${ID}.jsonl`)).size;
    console.log(`${done}/${N} appends of ${K} kB (${(size / 1e6).toFixed(1)} MB) in ${fmt(appends.ms)}${done < N ? ` (stopped at the ${BUDGET_MS / 1000} s budget)` : ''}`);
    console.log(`  per append: first tenth ${fmt(mean(times.slice(0, tenth)))}, last tenth ${fmt(mean(times.slice(-tenth)))}, max ${fmt(Math.max(...times))}; longest event-loop block ${fmt(appends.blockMs)}`);

    const first = await phase(() => pageOf(repo, { limit: 20, order: 'desc' }));
    const middleId = `msg_${Math.floor(done / 2)}`;
    const middle = await phase(() => pageOf(repo, { limit: 20, order: 'asc', after: middleId }));
    console.log(`  page (20, desc): ${fmt(first.ms)}, block ${fmt(first.blockMs)} · page after the middle (20, asc): ${fmt(middle.ms)}, block ${fmt(middle.blockMs)} [${middle.value.ids[0]}…, has_more ${middle.value.hasMore}]`);

    const cold = new FileConversationsRepo(dir);
    const coldPage = await phase(() => pageOf(cold, { limit: 20, order: 'desc' }));
    const warmPage = await phase(() => pageOf(cold, { limit: 20, order: 'desc' }));
    console.log(`  a repo opened afresh: first page ${fmt(coldPage.ms)}, block ${fmt(coldPage.blockMs)} · next page ${fmt(warmPage.ms)}, block ${fmt(warmPage.blockMs)}`);

    const oneMore = await phase(() => cold.append(ACCOUNT, ID, [item(done)]));
    console.log(`  one more append after that: ${fmt(oneMore.ms)}, block ${fmt(oneMore.blockMs)}`);

    const whole = await phase(() => cold.items(ACCOUNT, ID));
    console.log(`  a turn's read of the whole history (${whole.value!.length} items): ${fmt(whole.ms)}, block ${fmt(whole.blockMs)}`);
    await cold.close();
    await repo.close();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

await main();
