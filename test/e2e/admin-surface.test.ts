import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, spawnGateway, tempDir, type SpawnedGateway } from '../helpers/spawn-gateway.ts';

interface ServerJson {
  url: string;
  adminUrl?: string;
  adminToken: string;
}

const serverJson = (gw: SpawnedGateway) => JSON.parse(fs.readFileSync(path.join(gw.dataDir, 'server.json'), 'utf8')) as ServerJson;

function callAdmin(base: string, token: string, headers: Record<string, string> = {}) {
  return fetch(`${base}/admin/trpc/status`, { headers: { authorization: `Bearer ${token}`, ...headers } });
}

describe('admin surface', () => {
  it('server.admin { port }: a separate admin listener; the public one has no admin routes; the CLI finds it through server.json', async () => {
    // The public listener on another loopback address, the admin one on 127.0.0.1.
    const gw = await spawnGateway({ config: { server: { admin: { host: '127.0.0.1', port: 0 } }, providers: { mock: { plugin: 'mock' } } }, args: ['--host', '127.0.0.2'] });
    try {
      const info = serverJson(gw);
      expect(info.url).toBe(gw.url);
      expect(gw.url).toMatch(/^http:\/\/127\.0\.0\.2:\d+$/);
      expect(info.adminUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(gw.stdout()).toContain(`admin procedures listening on ${info.adminUrl}`);

      const onPublic = await callAdmin(gw.url, info.adminToken);
      expect(onPublic.status).toBe(404);
      expect(((await onPublic.json()) as { error: { code: string } }).error.code).toBe('not_found');
      expect((await callAdmin(info.adminUrl!, info.adminToken)).status).toBe(200);
      expect((await callAdmin(info.adminUrl!, 'gwa_wrong')).status).toBe(401);
      // The admin listener serves nothing else.
      expect((await fetch(`${info.adminUrl}/v1/models`, { headers: { authorization: `Bearer ${gw.key}` } })).status).toBe(404);

      // The CLI goes through the running server (the data dir is locked by it): the key works at once.
      const created = await runCli(['--config', gw.configFile, '--data-dir', gw.dataDir, 'keys', 'create', '--name', 'via-admin', '--json']);
      expect(created.exitCode).toBe(0);
      const { key } = JSON.parse(String(created.stdout)) as { key: string };
      expect((await fetch(`${gw.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(200);
      const status = await runCli(['--config', gw.configFile, '--data-dir', gw.dataDir, 'status', '--json']);
      expect(status.exitCode).toBe(0);
      expect(JSON.parse(String(status.stdout))).toMatchObject({ running: true, url: gw.url });
    } finally {
      expect(await gw.stop()).toBe(0);
    }
  });

  it('by default the admin procedures answer loopback clients only: a proxied remote client gets 404', async () => {
    const gw = await spawnGateway();
    try {
      const { adminToken, adminUrl } = serverJson(gw);
      expect(adminUrl).toBeUndefined();
      expect((await callAdmin(gw.url, adminToken)).status).toBe(200);
      expect((await callAdmin(gw.url, 'gwa_wrong')).status).toBe(401);
      const proxied: Array<Record<string, string>> = [{ 'x-forwarded-for': '203.0.113.7' }, { 'x-forwarded-for': '127.0.0.1, 198.51.100.4' }, { forwarded: 'for=198.51.100.9;proto=https' }, { 'x-real-ip': '192.0.2.1' },
        // RFC 7239 as proxies write it (issue 27): spaces, quotes, case, IPv6, a loopback hop first.
        { forwarded: 'for = 10.1.2.3' }, { forwarded: 'For="10.1.2.3:8080" ; proto=http' }, { forwarded: 'for=127.0.0.1, for="[2001:db8::17]:4711"' }, { forwarded: 'proto=https;for=unknown' }];
      for (const headers of proxied) {
        const res = await callAdmin(gw.url, adminToken, headers);
        expect(res.status).toBe(404);
        expect(((await res.json()) as { error: { message: string } }).error.message).toBe('No route for GET /admin/trpc/status.');
      }
      // Forwarded for a loopback client (a local proxy for a local tool) is still local.
      expect((await callAdmin(gw.url, adminToken, { 'x-forwarded-for': '127.0.0.1', forwarded: 'for="[::1]:4711"' })).status).toBe(200);
      // The public API is unaffected.
      expect((await fetch(`${gw.url}/v1/models`, { headers: { authorization: `Bearer ${gw.key}`, 'x-forwarded-for': '203.0.113.7' } })).status).toBe(200);
    } finally {
      await gw.stop();
    }
  });

  it('server.admin { public: true } serves them to remote clients too (the token still required)', async () => {
    const gw = await spawnGateway({ config: { server: { admin: { public: true } }, providers: { mock: { plugin: 'mock' } } } });
    try {
      const { adminToken } = serverJson(gw);
      expect((await callAdmin(gw.url, adminToken, { 'x-forwarded-for': '203.0.113.7' })).status).toBe(200);
      expect((await callAdmin(gw.url, 'gwa_wrong', { 'x-forwarded-for': '203.0.113.7' })).status).toBe(401);
    } finally {
      await gw.stop();
    }
  });

  it('contradictory admin settings are config errors', async () => {
    const dir = tempDir('gw-admin-');
    {
      for (const [admin, message] of [
        [{ public: true, port: 9000 }, 'server.admin: either a separate admin listener (host, port) or public: true, not both'],
        [{ host: '127.0.0.1' }, 'server.admin: server.admin.host needs server.admin.port'],
        [{ prot: 9000 }, 'unknown key "server.admin.prot" — did you mean "server.admin.port"?'],
      ] as const) {
        fs.writeFileSync(path.join(dir, 'gateway.config.json'), JSON.stringify({ server: { admin } }));
        const result = await runCli(['--config', path.join(dir, 'gateway.config.json'), 'models', 'ls'], { cwd: dir });
        expect(result.exitCode).toBe(1);
        expect(String(result.stderr)).toContain(message);
      }
    }
  });
});
