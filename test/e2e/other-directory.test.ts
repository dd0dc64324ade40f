import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runInPty } from '../helpers/run-in-pty.ts';
import { runCli, spawnGateway, tempDir, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { expectUserProjectServes, writeUserProject } from '../helpers/user-project.ts';

// The repo's gateway run from a CommonJS project elsewhere, where nothing named `gateway` is
// installed: the config is found from the cwd and its TypeScript plugin loads.
describe('gateway serve from another directory than the repo', () => {
  let project: string;
  let gw: SpawnedGateway;

  beforeAll(async () => {
    project = tempDir('gw-elsewhere-');
    fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'elsewhere', version: '1.0.0', type: 'commonjs' }));
    writeUserProject(project);
    gw = await spawnGateway({ cwd: project, configFile: path.join(project, 'gateway.config.ts'), dataDir: path.join(project, '.gateway') });
  });
  afterAll(async () => {
    expect(await gw.stop()).toBe(0);
  });

  it('serves the mock, a TypeScript plugin and a CommonJS plugin', async () => {
    await expectUserProjectServes(gw.url, gw.key!);
  });

  it('finds gateway.config.ts from the cwd without --config', async () => {
    const result = await runCli(['--data-dir', gw.dataDir, 'models', 'ls', '--json'], { cwd: project });
    expect(result.exitCode).toBe(0);
    const ids = (JSON.parse(String(result.stdout)) as Array<{ id: string }>).map((m) => m.id);
    expect(ids).toEqual(expect.arrayContaining(['mock/echo', 'shout/shout', 'shout/refuse', 'whisper/whisper']));
  });

  it('draws the TUI (JSX compiled, whatever tsconfig the cwd has)', { timeout: 60_000 }, async () => {
    fs.writeFileSync(path.join(project, 'tsconfig.json'), JSON.stringify({ compilerOptions: { jsx: 'preserve' } }));
    const tui = runInPty(['--data-dir', gw.dataDir, 'tui', '--refresh', '0'], { cwd: project });
    try {
      await tui.waitFor(`server ${gw.url}`);
      tui.type('4');
      await tui.waitFor('whisper/whisper');
      tui.type('q');
      expect((await tui.child).exitCode).toBe(0);
    } finally {
      tui.child.kill();
    }
  });
});
