import { Worker } from 'node:worker_threads';

/**
 * One worker thread that encodes texts with js-tiktoken's o200k_base, so neither building the
 * encoder nor a long count holds the event loop (count-input-tokens.ts). Started on the first
 * count and unref'd: it never keeps the process alive; it loads its own ranks (~2 MB) then. The code is
 * evaluated, not a file of its own, so the bundled build needs no extra entry; it imports the same
 * js-tiktoken the gateway resolves. A worker that fails or exits fails the counts it held and is
 * started again on the next one.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
let encoder;
parentPort.on('message', async ({ id, texts }) => {
  try {
    encoder ??= Promise.all([import(workerData.lite), import(workerData.ranks)]).then(([lite, ranks]) => new lite.Tiktoken(ranks.default));
    const tiktoken = await encoder;
    let tokens = 0;
    for (const text of texts) tokens += tiktoken.encode(text).length;
    parentPort.postMessage({ id, tokens });
  } catch (error) {
    parentPort.postMessage({ id, error: String(error) });
  }
});
`;

interface Pending {
  resolve: (tokens: number) => void;
  reject: (error: Error) => void;
}

let worker: Worker | undefined;
const pending = new Map<number, Pending>();
let nextId = 0;

function failAll(error: Error): void {
  worker = undefined;
  for (const waiting of pending.values()) waiting.reject(error);
  pending.clear();
}

function startWorker(): Worker {
  const started = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { lite: import.meta.resolve('js-tiktoken/lite'), ranks: import.meta.resolve('js-tiktoken/ranks/o200k_base') },
  });
  started.on('message', ({ id, tokens, error }: { id: number; tokens?: number; error?: string }) => {
    const waiting = pending.get(id);
    if (!waiting) return;
    pending.delete(id);
    if (pending.size === 0) started.unref();
    if (error !== undefined || tokens === undefined) waiting.reject(new Error(`The token counter failed: ${error}`));
    else waiting.resolve(tokens);
  });
  started.on('error', (error) => failAll(error));
  started.on('exit', (code) => {
    if (worker === started) failAll(new Error(`The token counter stopped (exit code ${code}).`));
  });
  started.unref();
  return started;
}

/** The tokens of `texts` in o200k_base, encoded on the worker thread. */
export function countOnWorker(texts: readonly string[]): Promise<number> {
  worker ??= startWorker();
  const id = nextId++;
  const counting = new Promise<number>((resolve, reject) => pending.set(id, { resolve, reject }));
  // Held while a count is under way (a server is running anyway), let go once none is.
  worker.ref();
  worker.postMessage({ id, texts });
  return counting;
}
