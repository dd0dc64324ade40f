/**
 * Summarises a V8 `.cpuprofile` (from `node --cpu-prof`): self time by function and by area
 * (our folders, each package, Node internals, GC), optionally only inside a time window.
 *
 *   node --import tsx bench/summarize-profile.ts <file.cpuprofile> [--top 30]
 */
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { formatTable } from './report.ts';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

export interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileSummary {
  /** Sampled time inside the window that was not idle, ms. */
  busyMs: number;
  windowMs: number;
  functions: Array<{ name: string; where: string; area: string; selfMs: number; callers: Map<string, number> }>;
  areas: Array<{ area: string; selfMs: number }>;
}

/** Where a frame's code lives: our folder, a package, a Node internal module, or the VM itself. */
export function areaOf(frame: CallFrame): string {
  const { url, functionName } = frame;
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  if (url.startsWith('node:')) return `node:${url.replace(/^node:(internal\/)?/, '').split('/')[0]}`;
  const pkg = url.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/);
  if (pkg) return pkg[1];
  const own = url.match(/\/(src|plugins|bench|bin)\/([^/]+)/);
  if (own) return own[2].includes('.') ? own[1] : `${own[1]}/${own[2]}`;
  return url;
}

function shortWhere(frame: CallFrame): string {
  if (!frame.url) return '';
  const tail = frame.url.replace(/^file:\/\//, '').replace(/^.*?node_modules\//, '').replace(/^.*?\/(src|plugins|bench|bin)\//, '$1/');
  // tsx-compiled files report line 0 for everything: a line number there would mislead.
  return frame.lineNumber > 0 ? `${tail}:${frame.lineNumber + 1}` : tail;
}

/** The nearest enclosing frame that is our code (src/, plugins/) or a package, for "who asked for this". */
function callerOf(id: number, parentOf: Map<number, ProfileNode>): string {
  const path: string[] = [];
  let node = parentOf.get(id);
  while (node && path.length < 3) {
    const frame = node.callFrame;
    if (frame.url && !frame.url.startsWith('node:')) {
      path.push(`${frame.functionName || '(anonymous)'} ${shortWhere(frame)}`);
      if (/\/(src|plugins)\//.test(frame.url)) break;
    }
    node = parentOf.get(node.id);
  }
  return path.length ? path.join(' ← ') : '(no JS caller)';
}

/** Self time per function and per area; `window` is [from, to] in the profile's µs clock. */
export function summarizeProfile(profile: CpuProfile, window?: [number, number]): ProfileSummary {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parentOf = new Map<number, ProfileNode>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node);
  const self = new Map<number, number>();
  let t = profile.startTime;
  let windowMs = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i];
    if (window && (t < window[0] || t > window[1])) continue;
    // A sample's delta is the time since the previous one, which is what this frame was charged.
    const delta = profile.timeDeltas[i];
    windowMs += delta / 1000;
    self.set(profile.samples[i], (self.get(profile.samples[i]) ?? 0) + delta / 1000);
  }
  const functions = new Map<string, ProfileSummary['functions'][number]>();
  const areas = new Map<string, number>();
  let busyMs = 0;
  for (const [id, ms] of self) {
    const frame = byId.get(id)!.callFrame;
    if (frame.functionName === '(idle)') continue;
    busyMs += ms;
    const where = shortWhere(frame);
    const key = `${frame.functionName}@${where}`;
    const area = areaOf(frame);
    const entry = functions.get(key) ?? { name: frame.functionName || '(anonymous)', where, area, selfMs: 0, callers: new Map() };
    entry.selfMs += ms;
    const caller = callerOf(id, parentOf);
    entry.callers.set(caller, (entry.callers.get(caller) ?? 0) + ms);
    functions.set(key, entry);
    areas.set(area, (areas.get(area) ?? 0) + ms);
  }
  return {
    busyMs,
    windowMs,
    functions: [...functions.values()].sort((a, b) => b.selfMs - a.selfMs),
    areas: [...areas.entries()].map(([area, selfMs]) => ({ area, selfMs })).sort((a, b) => b.selfMs - a.selfMs),
  };
}

/** The summary as two tables (top functions, then areas), percentages of busy time. */
export function formatProfileSummary(summary: ProfileSummary, top = 30, requests?: number): string {
  const pct = (ms: number) => `${((ms / summary.busyMs) * 100).toFixed(1)}%`;
  const perReq = (ms: number) => (requests ? ((ms * 1000) / requests).toFixed(1) : '');
  const header = ['self ms', '%', ...(requests ? ['µs/req'] : [])];
  const fnRows: string[][] = [];
  for (const f of summary.functions.slice(0, top)) {
    fnRows.push([`${f.name}  ${f.where}`, f.selfMs.toFixed(1), pct(f.selfMs), ...(requests ? [perReq(f.selfMs)] : [])]);
    const callers = [...f.callers.entries()].sort((a, b) => b[1] - a[1]).slice(0, 2);
    for (const [caller, ms] of callers) {
      if (ms / f.selfMs < 0.1) continue;
      fnRows.push([`    ← ${caller.slice(0, 110)}`, ms.toFixed(1), '', '']);
    }
  }
  const areaRows = summary.areas.slice(0, top).map((a) => [a.area, a.selfMs.toFixed(1), pct(a.selfMs), ...(requests ? [perReq(a.selfMs)] : [])]);
  return [
    `busy ${summary.busyMs.toFixed(0)} ms of ${summary.windowMs.toFixed(0)} ms sampled${requests ? `, ${requests} requests → ${perReq(summary.busyMs)} µs/req on the JS thread` : ''}`,
    '',
    `Top ${top} functions by self time`,
    formatTable(['function  location', ...header], fnRows),
    '',
    'Self time by area',
    formatTable(['area', ...header], areaRows),
  ].join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const file = process.argv[2];
  if (!file) {
    console.error('usage: summarize-profile.ts <file.cpuprofile> [--top N]');
    process.exit(2);
  }
  const topIndex = process.argv.indexOf('--top');
  const top = topIndex > 0 ? Number(process.argv[topIndex + 1]) : 30;
  console.log(formatProfileSummary(summarizeProfile(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile), top));
}
