/**
 * A daily trend per traffic source: one line per sid (the server sends the top sources), days
 * along the bottom, the chosen metric up the side. Days a source had nothing count as 0, so
 * every line spans the whole range. Lines differ by colour and dash (palette.ts); the legend is
 * HTML next to the SVG so it wraps on a phone. Pure SVG from visx's scales and LinePath; axes are
 * drawn here as plain lines and text, so the markup carries no style attributes (the console's
 * CSP need not allow inline style attributes).
 */
import { scaleLinear, scalePoint } from "@visx/scale";
import { LinePath } from "@visx/shape";
import type { TrendSeries } from "../../../shared/admin-views";
import { ChartFigure } from "./ChartFigure";
import { seriesStyle } from "./palette";
import { formatCount, formatMoney, formatSid } from "../format";

export type TrendMetric = "clicks" | "leads" | "revenue";

const WIDTH = 640;
const HEIGHT = 260;
const MARGIN = { top: 12, right: 16, bottom: 30, left: 52 };
/** At most this many day labels along the bottom; the rest are ticks only. */
const MAX_DAY_LABELS = 7;

const metricNames: Record<TrendMetric, string> = { clicks: "Clicks", leads: "Leads", revenue: "Revenue" };

function formatMetric(metric: TrendMetric, value: number): string {
  return metric === "revenue" ? formatMoney(value) : formatCount(value);
}

/** Every day any source has, ascending ("YYYY-MM-DD" sorts as text). */
function allDays(series: readonly TrendSeries[]): string[] {
  return [...new Set(series.flatMap((source) => source.points.map((point) => point.date)))].sort();
}

/** One value per day of `days` for this source (0 where it has no point). */
function valuesByDay(source: TrendSeries, days: readonly string[], metric: TrendMetric): number[] {
  const byDay = new Map(source.points.map((point) => [point.date, point[metric]]));
  return days.map((day) => byDay.get(day) ?? 0);
}

interface TrendChartProps {
  series: readonly TrendSeries[];
  metric: TrendMetric;
}

export function TrendChart({ series, metric }: TrendChartProps) {
  const name = metricNames[metric];
  const caption = `${name} per day by source`;
  const days = allDays(series);
  if (series.length === 0 || days.length === 0) {
    return (
      <figure className="chart chart-trend">
        <figcaption>{caption}</figcaption>
        <p className="empty">No traffic in this range.</p>
      </figure>
    );
  }

  const lines = series.map((source, index) => ({ sid: source.sid, values: valuesByDay(source, days, metric), style: seriesStyle(index) }));
  const largest = Math.max(1, ...lines.flatMap((line) => line.values));
  const x = scalePoint<string>({ domain: days, range: [MARGIN.left, WIDTH - MARGIN.right], padding: days.length === 1 ? 0.5 : 0 });
  const y = scaleLinear<number>({ domain: [0, largest], range: [HEIGHT - MARGIN.bottom, MARGIN.top], nice: true });
  // Counts have no fractional ticks; revenue may.
  const yTicks = y.ticks(4).filter((tick) => metric === "revenue" || Number.isInteger(tick));
  const labelEvery = Math.ceil(days.length / MAX_DAY_LABELS);
  const xOf = (day: string) => x(day) ?? MARGIN.left;
  const summary = lines
    .map((line) => `${formatSid(line.sid)}: ${formatMetric(metric, line.values.reduce((sum, value) => sum + value, 0))} in total`)
    .join("; ");

  return (
    <ChartFigure
      caption={caption}
      className="chart-trend"
      table={
        <table className="data-table">
          <thead>
            <tr>
              <th scope="col">Date</th>
              {lines.map((line) => (
                <th scope="col" className="num" key={line.sid}>
                  {formatSid(line.sid)}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {days.map((day, dayIndex) => (
              <tr key={day}>
                <th scope="row">{day}</th>
                {lines.map((line) => (
                  <td className="num" key={line.sid}>
                    {formatMetric(metric, line.values[dayIndex] ?? 0)}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      }
    >
      <svg className="chart-svg" viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-label={`${caption}, ${days[0]} to ${days[days.length - 1]}. ${summary}.`} focusable="false">
        <g className="chart-grid">
          {yTicks.map((tick) => (
            <g key={tick}>
              <line x1={MARGIN.left} x2={WIDTH - MARGIN.right} y1={y(tick)} y2={y(tick)} className="grid-line" />
              <text x={MARGIN.left - 8} y={y(tick)} dy="0.35em" textAnchor="end" className="chart-tick">
                {formatMetric(metric, tick)}
              </text>
            </g>
          ))}
        </g>
        <g className="chart-axis">
          <line x1={MARGIN.left} x2={WIDTH - MARGIN.right} y1={HEIGHT - MARGIN.bottom} y2={HEIGHT - MARGIN.bottom} className="axis-line" />
          {days.map((day, index) => (
            <g key={day}>
              <line x1={xOf(day)} x2={xOf(day)} y1={HEIGHT - MARGIN.bottom} y2={HEIGHT - MARGIN.bottom + 4} className="axis-line" />
              {index % labelEvery === 0 ? (
                <text x={xOf(day)} y={HEIGHT - MARGIN.bottom + 18} textAnchor="middle" className="chart-tick">
                  {day.slice(5)}
                </text>
              ) : null}
            </g>
          ))}
        </g>
        {lines.map((line) => (
          <g key={line.sid} className="trend-series">
            <LinePath
              data={line.values}
              x={(_value, index) => xOf(days[index] ?? "")}
              y={(value) => y(value)}
              stroke={line.style.stroke}
              strokeWidth={2.5}
              strokeDasharray={line.style.dash}
              fill="none"
              className="trend-line"
            />
            {line.values.map((value, index) => (
              <circle key={days[index]} cx={xOf(days[index] ?? "")} cy={y(value)} r={3} fill={line.style.stroke} />
            ))}
          </g>
        ))}
      </svg>
      <ul className="chart-legend" aria-label="Sources">
        {lines.map((line) => (
          <li key={line.sid}>
            <svg width="28" height="10" viewBox="0 0 28 10" aria-hidden="true" focusable="false">
              <line x1="1" x2="27" y1="5" y2="5" stroke={line.style.stroke} strokeWidth="2.5" strokeDasharray={line.style.dash} />
            </svg>
            {formatSid(line.sid)}
          </li>
        ))}
      </ul>
    </ChartFigure>
  );
}
