import { spawn } from 'node:child_process';
import net from 'node:net';

/** A 127.0.0.1 port whose accept queue is full: new TCP connects hang (connect-timeout tests). */
export interface Blackhole {
  url: string;
  close(): Promise<void>;
}

/**
 * A child process listens with a backlog of 1 and blocks its event loop, so it never
 * accepts; a few filler connections fill the kernel's accept queue, after which Linux
 * drops further SYNs and a client's connect() waits until its own timeout.
 */
export async function startBlackhole(): Promise<Blackhole> {
  const script =
    "const s=require('net').createServer();s.listen({port:0,host:'127.0.0.1',backlog:1},()=>{console.log(s.address().port);Atomics.wait(new Int32Array(new SharedArrayBuffer(4)),0,0,120000)})";
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('error', reject);
    child.stdout.once('data', (d: Buffer) => resolve(Number(String(d).trim())));
  });
  const fillers: net.Socket[] = [];
  for (let i = 0; i < 4; i += 1) fillers.push(net.connect(port, '127.0.0.1').on('error', () => undefined));
  await new Promise((r) => setTimeout(r, 100));
  return {
    url: `http://127.0.0.1:${port}`,
    async close() {
      for (const s of fillers) s.destroy();
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGKILL');
        await exited;
      }
    },
  };
}
