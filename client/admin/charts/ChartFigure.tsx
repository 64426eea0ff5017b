/**
 * Every chart of the console is one of these: a <figure> whose caption says what it shows, the
 * SVG (role="img" with a summary in aria-label, set by the chart), and the exact numbers as a
 * table in a <details>. The table is always in the document (closed, it is still read by screen
 * readers' table navigation once opened, by the browser tests, and by copy and paste), so no
 * number is only a bar length or a line's height.
 */
import type { ReactNode } from "react";

interface ChartFigureProps {
  caption: string;
  /** The chart itself (an <svg>), and anything shown next to it (a legend). */
  children: ReactNode;
  /** The accessible table with the chart's numbers. */
  table: ReactNode;
  className?: string;
}

export function ChartFigure({ caption, children, table, className }: ChartFigureProps) {
  return (
    <figure className={className ? `chart ${className}` : "chart"}>
      <figcaption>{caption}</figcaption>
      <div className="chart-canvas">{children}</div>
      <details className="chart-data">
        <summary>Numbers in this chart</summary>
        <div className="table-scroll">{table}</div>
      </details>
    </figure>
  );
}
