/** A bar per value (requests per day and the like), drawn as SVG; the label says it in words for screen readers. */
export function BarChart({ values, labels, label, format = (v) => String(v) }: { values: number[]; labels: string[]; label: string; format?: (v: number) => string }) {
  const max = Math.max(1, ...values);
  const width = 600;
  const height = 160;
  const gap = 2;
  const barWidth = values.length > 0 ? width / values.length - gap : 0;
  const top = 4;
  const total = values.reduce((a, b) => a + b, 0);
  return (
    <figure style={{ margin: 0 }}>
      <svg className="chart" viewBox={`0 0 ${width} ${height}`} preserveAspectRatio="none" role="img" aria-label={`${label}: ${format(total)} in total, highest ${format(max === 1 && total === 0 ? 0 : max)}`}>
        {values.map((v, i) => {
          const h = (v / max) * (height - top);
          return (
            <rect key={labels[i]} className="bar" x={i * (barWidth + gap)} y={height - h} width={Math.max(barWidth, 1)} height={h}>
              <title>{`${labels[i]}: ${format(v)}`}</title>
            </rect>
          );
        })}
      </svg>
      <div className="row muted" style={{ justifyContent: 'space-between', fontSize: '.8rem' }} aria-hidden="true">
        <span>{labels[0]}</span>
        <span>{labels[labels.length - 1]}</span>
      </div>
      <figcaption className="muted">{label}</figcaption>
    </figure>
  );
}

/** Named values as horizontal bars (top models). */
export function HorizontalBars({ rows, format }: { rows: Array<{ name: string; value: number }>; format: (v: number) => string }) {
  const max = Math.max(1e-9, ...rows.map((r) => r.value));
  if (rows.length === 0) return <p className="muted">Nothing yet.</p>;
  return (
    <ul style={{ listStyle: 'none', padding: 0, margin: 0 }}>
      {rows.map((r) => (
        <li key={r.name} className="hbar">
          <span className="mono" style={{ overflow: 'hidden', textOverflow: 'ellipsis' }}>{r.name}</span>
          <span className="track" aria-hidden="true"><span className="fill" style={{ width: `${(r.value / max) * 100}%`, display: 'block' }} /></span>
          <span>{format(r.value)}</span>
        </li>
      ))}
    </ul>
  );
}
