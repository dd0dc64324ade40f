import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { fail, runAction } from './run-action.ts';
import { registerMediaCommands, registerVideoCommands } from './register-media.ts';
import { registerBatchCommands } from './register-batches.ts';
import { listCommand } from './list-command.ts';

import { TIERS } from '../ir/index.ts';
import pkg from '../../package.json' with { type: 'json' };

/** Where an `--endpoints` description lists the endpoint groups (filled in by listKeyEndpoints). */
const KEY_ENDPOINTS = '<endpoint groups>';

/**
 * Fills in the endpoint groups of a keys subcommand's `--endpoints` description from the format
 * registry (every wire format, then media and batches), when that subcommand runs: loaded
 * here, not at start, so --help loads no command module. The config's plugins are loaded first
 * (not set up), so the formats they bring are groups here as they are on the server; a config
 * that does not load leaves the built-in groups (the command itself then says why).
 */
async function listKeyEndpoints(subcommand: Command): Promise<void> {
  const option = subcommand.options.find((o) => o.long === '--endpoints');
  if (!option?.description.includes(KEY_ENDPOINTS)) return;
  const [{ keyEndpoints }, { learnPluginFormats, resolveContext }] = await Promise.all([import('../accounts/index.ts'), import('./context.ts')]);
  // A config that does not load is the command's to report (it loads it again).
  const ctx = await resolveContext(subcommand).catch(() => undefined);
  if (ctx) await learnPluginFormats(ctx);
  option.description = option.description.replace(KEY_ENDPOINTS, keyEndpoints().join(', '));
}

function positiveInt(name: string) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError(`${name} must be a non-negative integer, got '${value}'`);
    return n;
  };
}

/** A TCP port: 0 (any free one) to 65535, refused here rather than by listen() with a hint about another server. */
function portNumber(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65_535) throw new InvalidArgumentError(`--port must be a port number from 0 to 65535, got '${value}'`);
  return n;
}

function number(name: string) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isFinite(n)) throw new InvalidArgumentError(`${name} must be a number, got '${value}'`);
    return n;
  };
}

/**
 * The advice after a refused command line. Under an npm script (`npm start --port 8788`) npm keeps the flags before
 * `--` for itself and passes their values on as arguments, so `serve` sees `8788`: say where the flags go.
 */
function usageHint(text: string): string {
  if (process.env.npm_lifecycle_event && /too many arguments/.test(text)) {
    return `run with --help for usage; npm passes a script's flags only after --: npm ${process.env.npm_lifecycle_event === 'start' ? 'start' : `run ${process.env.npm_lifecycle_event}`} -- --port 8788`;
  }
  return 'run with --help for usage';
}

/** Builds the CLI. Command modules load only when their command runs, so --help stays instant. */
export function buildProgram(): Command {
  const program = new Command('gateway')
    .description('Self-hosted AI API gateway: OpenAI Chat Completions and Responses, Anthropic Messages, Google Gemini (and formats from plugins) in, any provider out.')
    .version(pkg.version, '-v, --version')
    .option('-c, --config <file>', 'config file (env GATEWAY_CONFIG; default: gateway.config.* found from the cwd)')
    .option('-d, --data-dir <dir>', 'data directory (env GATEWAY_DATA_DIR; default: .gateway under the cwd)')
    // Every CLI error is one line (README): commander's own refusals too, named like ours ('gateway: …').
    .configureOutput({ outputError: (text, write) => write(`gateway: ${text.replace(/^error: /, '').trim().replace(/\s*\n\s*/g, ' ')} (${usageHint(text)})\n`) })
    .exitOverride();

  program
    .command('init')
    .description('write a commented gateway.config.ts for a new project (mock on, OpenAI/Anthropic from env)')
    .option('-f, --force', 'replace an existing config file')
    .action(runAction(async (opts, cmd) => (await import('./commands/init.ts')).initCommand(cmd, opts)));

  program
    .command('serve')
    .description('start the HTTP server')
    .option('-p, --port <n>', 'port (default: config server.port or 8787; 0 = any free port)', portNumber)
    .option('-H, --host <addr>', 'address to bind (default: config server.host or 127.0.0.1)')
    .action(runAction(async (opts, cmd) => (await import('./commands/serve.ts')).serve(cmd, opts)));

  const accounts = program.command('accounts').description('manage accounts');
  accounts
    .command('create')
    .description('create an account')
    .requiredOption('--email <e>', 'email address (login name)')
    .option('--password <p>', 'password for dashboard login (min 8 characters)')
    .addOption(new Option('--tier <t>', 'subscription tier').choices(TIERS))
    .option('--credits <n>', 'starting credits (1 credit = 0.001 USD)')
    .option('--quota <tokens>', 'monthly token quota (default none = unlimited)')
    .option('--spend-cap <credits>', 'credits the account may spend per UTC month (default none)')
    .option('--json', 'print JSON')
    .action(runAction(async (opts, cmd) => (await import('./commands/accounts.ts')).createAccountCommand(cmd, opts)));
  listCommand(accounts)
    .description('list accounts')
    .option('--json', 'print JSON')
    .action(runAction(async (opts, cmd) => (await import('./commands/accounts.ts')).listAccountsCommand(cmd, opts)));

  accounts
    .command('credits <email>')
    .description('add credits to an account (a negative amount takes them away; 1 credit = 0.001 USD)')
    .requiredOption('--add <n>', 'credits to add', number('--add'))
    .option('--json', 'print JSON')
    .action(runAction(async (email, opts, cmd) => (await import('./commands/billing.ts')).addCreditsCommand(cmd, email, opts)));
  accounts
    .command('set <email>')
    .description("change an account's tier, monthly token quota, custom RPM, monthly spend cap, password or suspension")
    .addOption(new Option('--tier <t>', 'subscription tier').choices(TIERS))
    .option('--quota <tokens>', 'monthly token quota (none = unlimited)')
    .option('--rpm <n>', 'custom requests per minute on AI-generation endpoints (none = tier default)')
    .option('--spend-cap <credits>', 'credits the account may spend per UTC month, all keys together (none = no cap)')
    .option('--password <p>', 'set the dashboard login password (min 8 characters); ends its sessions')
    .option('--no-password', 'remove the password: the account can no longer log in')
    .option('--suspended', 'suspend the account')
    .option('--no-suspended', 'lift a suspension')
    .option('--json', 'print JSON')
    .action(runAction(async (email, opts, cmd) => (await import('./commands/billing.ts')).setAccountCommand(cmd, email, opts)));
  accounts
    .command('reset-password <email>')
    .description('give an account a new random password (printed once) and end its dashboard sessions')
    .option('--json', 'print JSON')
    .action(runAction(async (email, opts, cmd) => (await import('./commands/billing.ts')).resetPasswordCommand(cmd, email, opts)));

  const keys = program.command('keys').description('manage API keys').hook('preSubcommand', (_keys, subcommand) => listKeyEndpoints(subcommand));
  keys
    .command('create')
    .description('create an API key (the key is printed once)')
    .option('--account <email>', 'owner account (default: the local default account)')
    .option('--name <n>', 'a name for the key')
    .option('--rpm <n>', 'custom requests-per-minute limit for this key')
    .option('--expires <date>', 'expiry as an ISO date, e.g. 2027-01-31')
    .option('--models <list>', 'model ids or globs the key may use, comma-separated, e.g. "mock/*,claude-*" (default all)')
    .option('--endpoints <list>', `endpoint groups the key may call, comma-separated: ${KEY_ENDPOINTS} (default all)`)
    .option('--limit <credits>', 'spend limit of the key in credits (default none)')
    .option('--limit-reset <period>', 'when the limit starts over: daily, weekly, monthly (default none = never)')
    .option('--json', 'print JSON')
    .action(runAction(async (opts, cmd) => (await import('./commands/keys.ts')).createKeyCommand(cmd, opts)));
  listCommand(keys)
    .description('list API keys (secrets are never shown)')
    .option('--account <email>', "only this account's keys")
    .option('--json', 'print JSON')
    .action(runAction(async (opts, cmd) => (await import('./commands/keys.ts')).listKeysCommand(cmd, opts)));
  keys
    .command('revoke <id>')
    .description('revoke an API key')
    .option('--json', 'print JSON')
    .action(runAction(async (id, opts, cmd) => (await import('./commands/keys.ts')).revokeKeyCommand(cmd, id, opts)));

  keys
    .command('set <id>')
    .description("change an API key's name, RPM, expiry, model and endpoint scopes or spend limit")
    .option('--name <n>', 'a new name')
    .option('--rpm <n>', 'requests per minute (0 or none clears it)')
    .option('--expires <date>', 'expiry as an ISO date, e.g. 2027-01-31 (none = never)')
    .option('--models <list>', 'model ids or globs, comma-separated (all = every model)')
    .option('--endpoints <list>', `endpoint groups, comma-separated: ${KEY_ENDPOINTS} (all = every endpoint)`)
    .option('--limit <credits>', 'spend limit in credits (none = no limit)')
    .option('--limit-reset <period>', 'daily, weekly, monthly or none')
    .option('--json', 'print JSON')
    .action(runAction(async (id, opts, cmd) => (await import('./commands/keys.ts')).setKeyCommand(cmd, id, opts)));

  const models = program.command('models').description('list models (models ls)');
  listCommand(models)
    .description('list the models of the configured providers')
    .option('--json', 'print JSON')
    .action(runAction(async (opts, cmd) => (await import('./commands/models.ts')).listModelsCommand(cmd, opts)));

  registerMediaCommands(program);
  registerVideoCommands(program);
  registerBatchCommands(program);

  const store = program.command('store').description('the record store: move a data dir into PostgreSQL, check what a store holds');
  store
    .command('migrate')
    .description('copy the data dir (accounts, keys, balances, sessions, usage, media, responses, conversations, files, batches) into an empty PostgreSQL database and verify it')
    .requiredOption('--to <url>', 'the PostgreSQL database, e.g. postgres://gateway@db:5432/gateway (must hold no gateway records)')
    .option('--json', 'print JSON')
    .action(runAction(async (opts, cmd) => (await import('./commands/store.ts')).migrateStoreCommand(cmd, opts)));
  store
    .command('check')
    .description("the configured store's backend, schema version (current, older or newer than this gateway) and records per kind; reads only")
    .option('--url <url>', 'check this PostgreSQL database instead of the configured store')
    .option('--json', 'print JSON')
    .action(runAction(async (opts, cmd) => (await import('./commands/store.ts')).checkStoreCommand(cmd, opts)));

  program
    .command('usage')
    .description('credit balances, spend and token use per account (daily rows with --account)')
    .option('--account <email>', 'one account, with its activity of the last 30 days')
    .option('--json', 'print JSON')
    .action(runAction(async (opts, cmd) => (await import('./commands/billing.ts')).usageCommand(cmd, opts)));

  program
    .command('status')
    .description("the running server's live figures: requests/s, errors, latency, tokens and credits per minute, fallbacks served, open circuits, latest requests")
    .option('--json', 'print JSON')
    .action(runAction(async (opts, cmd) => (await import('./commands/status.ts')).statusCommand(cmd, opts)));

  program
    .command('dashboard')
    .description("the running server's web dashboard URL, and a link that opens its operator views")
    .action(runAction(async (_opts, cmd) => (await import('./commands/dashboard.ts')).dashboardCommand(cmd)));

  program
    .command('tui')
    .description('interactive admin TUI: overview, accounts, keys, models, media, batches (needs a terminal)')
    .option('--refresh <seconds>', 'auto-refresh period when a server runs (default 5; 0 = off)', positiveInt('--refresh'))
    .action(runAction(async (opts, cmd) => (await import('./commands/tui.ts')).tuiCommand(cmd, opts)));

  return program;
}

/**
 * A reader of stdout that went away (`gateway models ls --json | head -1`): a command ends quietly
 * with its exit code (0 when it had no error), not with Node's unhandled EPIPE stack trace; a
 * server goes on serving (what it would print is lost).
 */
function endQuietlyWhenStdoutCloses(program: Command): void {
  let command = '';
  program.hook('preAction', (_root, action) => {
    command = action.name();
  });
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    if (command !== 'serve') process.exit(process.exitCode ?? 0);
  });
}

/** Entry point of bin/gateway. */
export async function main(argv: string[]): Promise<void> {
  const program = buildProgram();
  endQuietlyWhenStdoutCloses(program);
  try {
    await program.parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) {
      process.exitCode = error.exitCode;
      return;
    }
    fail(error);
  }
}
