/** The parent's side of the load generator: fork it once, hand it jobs over IPC. */
import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import type { ChildMessage, LoadJob, LoadResult, ParentMessage } from './load.ts';
import { track } from './processes.ts';
import { REPO } from './targets.ts';

/** A job the target could not serve (the probe failed): the case is skipped, not the bench. */
export class JobFailed extends Error {}

export class LoadGenerator {
  private constructor(private readonly proc: ChildProcess) {}

  /** Forks bench/load.ts and waits until it is listening for jobs. */
  static async start(): Promise<LoadGenerator> {
    const proc = fork(path.join(REPO, 'bench/load.ts'), [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'], cwd: REPO });
    track(proc);
    await new Promise<void>((resolve, reject) => {
      proc.once('message', (m: ChildMessage) => (m.type === 'ready' ? resolve() : reject(new Error(`load generator said ${m.type}`))));
      proc.once('exit', (code) => reject(new Error(`load generator exited with code ${code}`)));
    });
    return new LoadGenerator(proc);
  }

  /**
   * Runs one job. `atWarm` runs after the warm-up has drained and before the measured phase
   * starts (read counters there); the result comes back once the measured phase has drained.
   */
  run(job: LoadJob, atWarm: () => void | Promise<void>): Promise<LoadResult> {
    return new Promise<LoadResult>((resolve, reject) => {
      const onExit = (code: number | null) => reject(new Error(`load generator exited with code ${code}`));
      const onMessage = (m: ChildMessage) => {
        if (m.type === 'warm') {
          void Promise.resolve(atWarm()).then(() => this.send({ type: 'go' }));
          return;
        }
        this.proc.off('message', onMessage);
        this.proc.off('exit', onExit);
        if (m.type === 'result') resolve(m.result);
        else if (m.type === 'failed') reject(new JobFailed(m.message));
      };
      this.proc.on('message', onMessage);
      this.proc.once('exit', onExit);
      this.send({ type: 'job', job });
    });
  }

  async stop(): Promise<void> {
    if (this.proc.exitCode !== null) return;
    this.send({ type: 'exit' });
    await new Promise((resolve) => this.proc.once('exit', resolve));
  }

  private send(message: ParentMessage): void {
    this.proc.send(message);
  }
}
