/**
 * Line styles for the trend chart's sources: each has a colour with at least 3:1 contrast on
 * white (WCAG 1.4.11) and a dash pattern, so two sources differ by more than colour alone.
 */
export interface SeriesStyle {
  stroke: string;
  /** SVG stroke-dasharray; undefined for a solid line. */
  dash: string | undefined;
}

const colours = ["#0b5cab", "#b45309", "#047857", "#7c3aed", "#be123c", "#0e7490", "#4b5563", "#a16207"] as const;
const dashes = [undefined, "7 4", "2 3", "9 3 2 3"] as const;

export function seriesStyle(index: number): SeriesStyle {
  return {
    stroke: colours[index % colours.length] ?? colours[0],
    dash: dashes[index % dashes.length],
  };
}
