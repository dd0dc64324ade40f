// Which PostgreSQL driver on the hot path: `pg` vs `postgres`, on the exact query the request
// path runs before the upstream call (one atomic credit reservation, one round trip), and on the
// settlement that follows off the critical path. Run by hand: node bench/pg-driver-bench.mjs
// (DATABASE_URL, default postgres://postgres@127.0.0.1:5432/postgres). Rounds alternate drivers.
import pg from 'pg';
import postgres from 'postgres';

const url = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const N = Number(process.env.N ?? 3000);
const table = `drvbench_${process.pid}`;
const RESERVE = `update ${table} set reserved = reserved + $1 where id = $2 and not suspended and credits - reserved >= $1 returning credits, reserved`;
const SETTLE = `with s as (insert into ${table}_ledger (request_id, account_id, cost) values ($1, $2, $3) on conflict do nothing returning cost)
  update ${table} set reserved = reserved - $4, credits = credits - (select cost from s) where id = $2 and exists (select 1 from s)`;

const admin = new pg.Client(url);
await admin.connect();
await admin.query(`create table ${table} (id text primary key, credits numeric not null, reserved numeric not null default 0, suspended boolean not null default false)`);
await admin.query(`create table ${table}_ledger (request_id text primary key, account_id text not null, cost numeric not null)`);
await admin.query(`insert into ${table} values ('a', 1000000000, 0)`);

let seq = 0;
async function measure(name, one, conc) {
  for (let i = 0; i < 200; i++) await one();
  const t0 = process.hrtime.bigint();
  const c0 = process.cpuUsage();
  let i = 0;
  await Promise.all(Array.from({ length: conc }, async () => { while (i++ < N) await one(); }));
  const wall = Number(process.hrtime.bigint() - t0) / 1e3 / N;
  const c = process.cpuUsage(c0);
  return { name, conc, wall, cpu: (c.user + c.system) / N };
}

const pool = new pg.Pool({ connectionString: url, max: 8 });
const sql = postgres(url, { max: 8, prepare: true, onnotice: () => {} });
const drivers = {
  pg: {
    reserve: () => pool.query({ name: 'rsv', text: RESERVE, values: [1, 'a'] }),
    settle: () => pool.query({ name: 'stl', text: SETTLE, values: [`r${++seq}`, 'a', 0.5, 1] }),
  },
  postgres: {
    reserve: () => sql.unsafe(RESERVE, [1, 'a'], { prepare: true }),
    settle: () => sql.unsafe(SETTLE, [`r${++seq}`, 'a', 0.5, 1], { prepare: true }),
  },
};
const results = [];
try {
  for (let round = 0; round < 3; round++) {
    for (const conc of [1, 16]) {
      for (const [name, d] of round % 2 ? Object.entries(drivers).reverse() : Object.entries(drivers)) {
        results.push({ ...(await measure(name, d.reserve, conc)), op: 'reserve' });
        results.push({ ...(await measure(name, d.settle, conc)), op: 'settle' });
      }
    }
  }
} finally {
  await pool.end();
  await sql.end();
  await admin.query(`drop table ${table}; drop table ${table}_ledger`);
  await admin.end();
}
const median = (xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log('op       conc  driver    wall µs/op  cpu µs/op (median of 3 rounds)');
for (const op of ['reserve', 'settle']) for (const conc of [1, 16]) {
  const row = {};
  for (const name of Object.keys(drivers)) {
    const rs = results.filter((r) => r.op === op && r.conc === conc && r.name === name);
    row[name] = { wall: median(rs.map((r) => r.wall)), cpu: median(rs.map((r) => r.cpu)) };
    console.log(`${op.padEnd(8)} ${String(conc).padStart(4)}  ${name.padEnd(9)} ${row[name].wall.toFixed(1).padStart(9)}  ${row[name].cpu.toFixed(1).padStart(9)}`);
  }
  console.log(`${''.padEnd(14)}postgres/pg cpu ratio ${(row.postgres.cpu / row.pg.cpu).toFixed(2)}, wall ratio ${(row.postgres.wall / row.pg.wall).toFixed(2)}`);
}
