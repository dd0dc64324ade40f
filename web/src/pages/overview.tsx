import { query } from '../api/session.ts';
import { BarChart, HorizontalBars } from '../components/charts.tsx';
import { count, credits, usd } from '../components/format.ts';
import { useLoad } from '../components/use-load.ts';

export function OverviewPage() {
  const me = useLoad(() => query('me'), []);
  const { data, error } = useLoad(() => query('overview'), [], { intervalMs: 10_000 });
  return (
    <>
      <h1>Overview</h1>
      {me.data && <p className="muted">{me.data.email} · tier {me.data.tier}</p>}
      {error && <p className="error" role="alert">{error}</p>}
      {data && (
        <>
          <section className="cards" aria-label="Balance and spend">
            <div className="panel card">
              <div className="label">Balance</div>
              <div className="value" data-testid="balance">{credits(data.credits.data.credits.balance)}</div>
              <div className="muted">{usd(data.credits.data.balance)} · {credits(data.credits.data.credits.available)} available</div>
            </div>
            <div className="panel card">
              <div className="label">Spend this month</div>
              <div className="value">{credits(data.month.credits)}</div>
              <div className="muted">{usd(data.month.usd)}</div>
            </div>
            <div className="panel card">
              <div className="label">Requests, last {data.days} days</div>
              <div className="value">{count(data.per_day.reduce((a, d) => a + d.requests, 0))}</div>
            </div>
          </section>
          <section className="panel" aria-labelledby="per-day">
            <h2 id="per-day">Requests per day</h2>
            <BarChart values={data.per_day.map((d) => d.requests)} labels={data.per_day.map((d) => d.date)} label={`Requests per day, last ${data.days} days`} format={count} />
          </section>
          <section className="panel" aria-labelledby="spend-day">
            <h2 id="spend-day">Spend per day</h2>
            <BarChart values={data.per_day.map((d) => d.credits)} labels={data.per_day.map((d) => d.date)} label={`Credits per day, last ${data.days} days`} format={credits} />
          </section>
          <section className="panel" aria-labelledby="top-models">
            <h2 id="top-models">Top models</h2>
            <TopModels rows={data.top_models} />
          </section>
        </>
      )}
    </>
  );
}

/** Every model by its spend once any cost credits (a free one at 0 cr), else by its requests: one measure per chart. */
function TopModels({ rows }: { rows: Array<{ model: string; credits: number; requests: number }> }) {
  const priced = rows.some((m) => m.credits > 0);
  return <HorizontalBars rows={rows.map((m) => ({ name: m.model, value: priced ? m.credits : m.requests }))} format={priced ? credits : (v) => `${count(v)} requests`} />;
}
