#!/usr/bin/env node
// Installs the third-party clients the agent e2e tests run (test/clients: Claude Code, Codex,
// gemini-cli, opencode, Qwen Code, the AI SDK (its Bedrock and Vertex providers too), LangChain (its Bedrock
// Converse model too), the OpenAI Agents SDK, the Anthropic Vertex and Bedrock SDKs and the AWS SDK's Bedrock client,
// the newest official SDKs (openai 7, which needs Node 22, and @anthropic-ai/sdk 1.14, aliased as openai-v7 and
// anthropic-sdk-v1-14); hundreds of MB, so never root devDependencies). Idempotent: `npm ci`
// runs only when test/clients/package-lock.json changed since the last install. Called by
// .ci/run and by the tests that use the clients (test/helpers/test-clients.ts).
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

const dir = path.resolve(import.meta.dirname, '../test/clients');
const lock = fs.readFileSync(path.join(dir, 'package-lock.json'));
const hash = crypto.createHash('sha256').update(lock).digest('hex');
const stamp = path.join(dir, 'node_modules/.installed-lock-sha256');
if (fs.existsSync(stamp) && fs.readFileSync(stamp, 'utf8') === hash) process.exit(0);
// `npm ci` leaves Claude Code's postinstall out (npm's allowScripts): the tests run the native
// binary from its platform package directly, which is what the postinstall would copy (opencode's too).
// The registry these machines reach serves, of opencode's platform packages and those of Qwen
// Code's clipboard module, only the linux-x64 glibc builds: the lock names the others without an
// integrity (npm ci wants every optional dependency in the lock; it installs none of another platform).
execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: dir, stdio: 'inherit' });
fs.writeFileSync(stamp, hash);
