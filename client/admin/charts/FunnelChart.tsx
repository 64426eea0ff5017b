/**
 * The funnel for the report's range: one horizontal bar per stage (clicks → unique clicks → ZIP
 * submits → quote views → form starts → leads → sold), scaled to the largest stage, with the
 * count written at the end of each bar. Pure SVG from visx's scale and Bar, rendered on the
 * server; a fixed viewBox scales with CSS.
 */
import { scaleLinear } from "@visx/scale";
import { Bar } from "@visx/shape";
import { ChartFigure } from "./ChartFigure";
import { formatCount, formatRate } from "../format";

export interface FunnelStage {
  stage: string;
  count: number;
}

const WIDTH = 420;
const LABEL_WIDTH = 112;
const VALUE_WIDTH = 60;
const ROW_HEIGHT = 34;
const BAR_HEIGHT = 22;
const PADDING_Y = 6;

/** The share of the first stage (the clicks) that reached this one; 0 when there were none. */
function shareOfFirst(stages: readonly FunnelStage[], count: number): number {
  const first = stages[0]?.count ?? 0;
  return first > 0 ? count / first : 0;
}

export function FunnelChart({ stages }: { stages: readonly FunnelStage[] }) {
  const height = PADDING_Y * 2 + ROW_HEIGHT * Math.max(stages.length, 1);
  const largest = Math.max(1, ...stages.map((stage) => stage.count));
  const length = scaleLinear<number>({ domain: [0, largest], range: [0, WIDTH - LABEL_WIDTH - VALUE_WIDTH] });
  const summary = stages.map((stage) => `${stage.stage} ${formatCount(stage.count)}`).join(", ");

  return (
    <ChartFigure
      caption="Funnel for the whole range"
      className="chart-funnel"
      table={
        <table className="data-table">
          <thead>
            <tr>
              <th scope="col">Stage</th>
              <th scope="col" className="num">
                Count
              </th>
              <th scope="col" className="num">
                Share of clicks
              </th>
            </tr>
          </thead>
          <tbody>
            {stages.map((stage) => (
              <tr key={stage.stage}>
                <th scope="row">{stage.stage}</th>
                <td className="num">{formatCount(stage.count)}</td>
                <td className="num">{formatRate(shareOfFirst(stages, stage.count))}</td>
              </tr>
            ))}
          </tbody>
        </table>
      }
    >
      <svg className="chart-svg" viewBox={`0 0 ${WIDTH} ${height}`} role="img" aria-label={`Funnel: ${summary}`} focusable="false">
        {stages.map((stage, index) => {
          const top = PADDING_Y + index * ROW_HEIGHT;
          const middle = top + ROW_HEIGHT / 2;
          const barLength = length(stage.count);
          return (
            <g key={stage.stage} className="funnel-row">
              <text x={LABEL_WIDTH - 10} y={middle} dy="0.35em" textAnchor="end" className="chart-label">
                {stage.stage}
              </text>
              <rect x={LABEL_WIDTH} y={top + (ROW_HEIGHT - BAR_HEIGHT) / 2} width={WIDTH - LABEL_WIDTH - VALUE_WIDTH} height={BAR_HEIGHT} className="funnel-track" />
              <Bar x={LABEL_WIDTH} y={top + (ROW_HEIGHT - BAR_HEIGHT) / 2} width={barLength} height={BAR_HEIGHT} className="funnel-bar" />
              <text x={LABEL_WIDTH + barLength + 6} y={middle} dy="0.35em" className="chart-value">
                {formatCount(stage.count)}
              </text>
            </g>
          );
        })}
      </svg>
    </ChartFigure>
  );
}
