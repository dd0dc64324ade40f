/**
 * Preloaded into the gateway or the floor by bench/promise-count.ts (`node --import`): counts the
 * promises the process makes and the reactions it runs (V8's promise hooks), and on SIGUSR2 writes
 * `PROMISES <made> <reactions>` to stderr; the second signal on also writes where the promises of
 * the window between the two were made (one in 97 sampled, four frames each) to the file named by
 * PROMISE_SITES, when set.
 */
import { writeFileSync } from 'node:fs';
import { promiseHooks } from 'node:v8';

let made = 0;
let reactions = 0;
let sampled = 0;
let sampling = false;
const sites = new Map();

promiseHooks.createHook({
  init() {
    made += 1;
    if (!sampling || sampled++ % 97 !== 0) return;
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 6;
    const stack = new Error().stack ?? '';
    Error.stackTraceLimit = limit;
    const site = stack.split('\n').slice(2, 6).map((line) => line.trim().replace(/^at /, '')).join(' < ');
    sites.set(site, (sites.get(site) ?? 0) + 1);
  },
  before() {
    reactions += 1;
  },
});

process.on('SIGUSR2', () => {
  process.stderr.write(`PROMISES ${made} ${reactions}\n`);
  if (!sampling) {
    sampling = true;
    return;
  }
  const file = process.env.PROMISE_SITES;
  if (file) writeFileSync(file, [...sites].sort((a, b) => b[1] - a[1]).map(([site, count]) => `${count}\t${site}`).join('\n') + '\n');
  sites.clear();
});
