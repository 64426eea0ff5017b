/**
 * The operations console's stylesheet, inlined into every console page (render-admin.tsx).
 * It is a string in a module rather than a .css file imported with `?inline`/`?raw` because
 * vitest empties every CSS import it does not process (its default), so the pages' tests would
 * see no styles; a plain module is the same text in tests, the dev server and the build.
 *
 * The colours and font are the site's (client/styles.css :root); the layout is a dense internal
 * tool. Mobile first: base rules are for phones (tables and charts scroll inside their own box,
 * the navigation wraps); wider screens add to them. Text colours meet WCAG AA on their
 * backgrounds.
 */
export const adminCss = `
:root {
  --brand: #0b5cab;
  --brand-dark: #08457f;
  --accent: #f59e0b;
  --ink: #1f2937;
  --muted: #4b5563;
  --line: #d1d5db;
  --line-soft: #e5e7eb;
  --surface: #f3f7fb;
  --danger: #b91c1c;
  --danger-surface: #fef2f2;
  --success: #166534;
  --success-surface: #f0fdf4;
  --radius: 6px;
  color-scheme: light;
  font-family: system-ui, -apple-system, "Segoe UI", Roboto, Arial, sans-serif;
  font-size: 15px;
  line-height: 1.45;
  color: var(--ink);
  background: var(--surface);
  -webkit-text-size-adjust: 100%;
}

*, *::before, *::after { box-sizing: border-box; }
body { margin: 0; min-width: 0; }
img, svg { max-width: 100%; }
a { color: var(--brand); }
a:hover { color: var(--brand-dark); }
h1 { font-size: 1.35rem; line-height: 1.25; margin: 0 0 12px; }
h2 { font-size: 1.1rem; margin: 20px 0 8px; }
h3 { font-size: 1rem; margin: 0 0 8px; }
code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 0.9em; overflow-wrap: anywhere; }
.muted { color: var(--muted); font-weight: normal; }

/* Visible focus on everything that takes it. */
a:focus-visible, button:focus-visible, input:focus-visible, select:focus-visible, textarea:focus-visible,
summary:focus-visible, [tabindex]:focus-visible {
  outline: 3px solid var(--accent);
  outline-offset: 2px;
}
main:focus { outline: none; }

.skip-link {
  position: absolute; left: 8px; top: -48px; z-index: 10; padding: 8px 12px;
  background: var(--ink); color: #fff; border-radius: var(--radius);
}
.skip-link:focus { top: 8px; color: #fff; }

/* Header and navigation */
.console-header { background: #fff; border-bottom: 1px solid var(--line); }
.console-bar {
  display: flex; flex-wrap: wrap; align-items: center; justify-content: space-between; gap: 8px 16px;
  max-width: 1280px; margin: 0 auto; padding: 8px 12px;
}
.console-home { text-decoration: none; color: var(--ink); min-height: 44px; display: inline-flex; align-items: center; }
.console-brand { display: inline-flex; flex-wrap: wrap; align-items: center; gap: 4px 10px; }
.logo { display: inline-flex; align-items: center; gap: 6px; font-weight: 800; font-size: 1.1rem; letter-spacing: -0.01em; }
.logo-mark { width: 26px; height: 26px; }
.logo-text { color: var(--brand-dark); }
.console-name {
  font-size: 0.8rem; font-weight: 700; text-transform: uppercase; letter-spacing: 0.06em; color: var(--muted);
  border-left: 1px solid var(--line); padding-left: 10px;
}
.console-user { display: flex; flex-wrap: wrap; align-items: center; gap: 8px; font-size: 0.9rem; }
.role-badge {
  display: inline-block; padding: 1px 8px; border-radius: 999px; background: var(--surface);
  border: 1px solid var(--line); font-size: 0.8rem; font-weight: 600; text-transform: uppercase; letter-spacing: 0.04em;
}
.sign-out { margin: 0; }
.console-nav { border-top: 1px solid var(--line-soft); }
.console-nav ul {
  list-style: none; margin: 0 auto; padding: 0 8px; max-width: 1280px;
  display: flex; flex-wrap: wrap; gap: 0 4px;
}
.console-nav a {
  display: inline-flex; align-items: center; min-height: 44px; padding: 0 10px;
  text-decoration: none; color: var(--ink); font-weight: 600; border-bottom: 3px solid transparent;
}
.console-nav a:hover { color: var(--brand); }
.console-nav a[aria-current="page"] { color: var(--brand-dark); border-bottom-color: var(--brand); }

.console-main { max-width: 1280px; margin: 0 auto; padding: 16px 12px 48px; }
.page-heading { display: flex; flex-wrap: wrap; align-items: center; justify-content: space-between; gap: 8px 16px; margin-bottom: 8px; }
.page-heading h1 { margin: 0; }

/* Messages */
.flash, .form-error, .form-errors {
  margin: 0 0 16px; padding: 10px 12px; border-radius: var(--radius); border: 1px solid;
}
.flash-success { background: var(--success-surface); border-color: #86efac; color: var(--success); }
.flash-error, .form-error, .form-errors { background: var(--danger-surface); border-color: #fca5a5; color: var(--danger); }
.form-errors p, .form-errors ul { margin: 0; }
.form-errors ul { padding-left: 20px; }
.empty { color: var(--muted); font-style: italic; }
.note { color: var(--muted); font-size: 0.875rem; margin: 8px 0; }
.summary { margin: 0 0 12px; }
.overdue-count { color: var(--danger); }

/* Buttons and forms */
.button, .button-secondary, .button-quiet, .button-danger {
  display: inline-flex; align-items: center; justify-content: center; min-height: 44px; padding: 8px 14px;
  font: inherit; font-weight: 700; border-radius: var(--radius); cursor: pointer; text-decoration: none; border: 1px solid;
}
.button { background: var(--brand); border-color: var(--brand); color: #fff; }
.button:hover { background: var(--brand-dark); color: #fff; }
.button-secondary { background: #fff; border-color: var(--brand); color: var(--brand-dark); }
.button-secondary:hover { background: var(--surface); }
.button-quiet { background: #fff; border-color: var(--line); color: var(--ink); font-weight: 600; min-height: 36px; }
.button-danger { background: #fff; border-color: var(--danger); color: var(--danger); }
.button-danger:hover { background: var(--danger-surface); }

.field { display: flex; flex-direction: column; gap: 4px; }
.field label { font-weight: 600; font-size: 0.875rem; }
.field input[type="text"], .field input[type="password"], .field input[type="date"], .field select, .field textarea {
  font: inherit; min-height: 44px; padding: 8px 10px; width: 100%;
  border: 1px solid #6b7280; border-radius: var(--radius); background: #fff; color: var(--ink);
}
.field textarea { min-height: 60px; resize: vertical; }
.field-check { flex-direction: row; align-items: center; gap: 8px; min-height: 44px; }
.field-check input { width: 20px; height: 20px; margin: 0; }
.field-check label { font-size: 1rem; }

.query-form {
  display: grid; grid-template-columns: repeat(2, minmax(0, 1fr)); gap: 12px; align-items: end;
  background: #fff; border: 1px solid var(--line); border-radius: var(--radius); padding: 12px; margin: 0 0 16px;
}
.query-form .field-submit, .query-form .field-check { grid-column: 1 / -1; }
/* Older / newest: links big enough to tap on a phone. */
.pager { display: flex; flex-wrap: wrap; gap: 8px 24px; margin: 12px 0; }
.pager a { display: inline-flex; align-items: center; min-height: 44px; font-weight: 600; }
.inline-form { display: flex; flex-wrap: wrap; align-items: end; gap: 8px; margin-top: 12px; }
.close-form { display: grid; gap: 8px; min-width: 220px; }

/* Tables: dense, numbers right-aligned, and each table scrolls inside its own box on a phone. */
.table-scroll { overflow-x: auto; max-width: 100%; background: #fff; border: 1px solid var(--line); border-radius: var(--radius); }
.data-table { border-collapse: collapse; width: 100%; font-size: 0.875rem; font-variant-numeric: tabular-nums; }
.data-table caption { caption-side: top; text-align: left; padding: 8px 10px; color: var(--muted); font-size: 0.85rem; }
.data-table th, .data-table td { padding: 6px 10px; border-bottom: 1px solid var(--line-soft); text-align: left; vertical-align: top; white-space: nowrap; }
.data-table thead th { background: var(--surface); border-bottom: 1px solid var(--line); font-weight: 700; }
.data-table tbody th { font-weight: 600; }
.data-table .num { text-align: right; }
.data-table tfoot th, .data-table tfoot td { border-top: 2px solid var(--line); border-bottom: 0; font-weight: 700; background: var(--surface); }
.data-table abbr { text-decoration: underline dotted; cursor: help; }
.data-table .excerpt { white-space: normal; min-width: 200px; font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 0.8rem; overflow-wrap: anywhere; }
.data-table td.attention { color: var(--danger); font-weight: 700; }
.journey-table td { white-space: normal; }
.journey-table tr.bot th::after { content: " (bot)"; color: var(--muted); font-weight: normal; }
.privacy-table td { white-space: normal; }
.privacy-table tr.overdue th, .privacy-table tr.overdue td { background: var(--danger-surface); }
.privacy-table tr.overdue th { box-shadow: inset 4px 0 0 var(--danger); }
.privacy-table tr.overdue .deadline { color: var(--danger); }
.privacy-table .note { margin: 4px 0 0; }

.cap { display: inline-flex; align-items: center; gap: 8px; }
.cap meter { width: 80px; height: 12px; }

/* Facts about one thing */
.facts { display: grid; grid-template-columns: 1fr; gap: 4px 16px; margin: 0 0 12px; background: #fff; border: 1px solid var(--line); border-radius: var(--radius); padding: 12px; }
.facts div { display: flex; gap: 8px; }
.facts dt { font-weight: 700; min-width: 110px; }
.facts dd { margin: 0; overflow-wrap: anywhere; }
.facts-inline { display: flex; flex-wrap: wrap; gap: 2px 14px; margin: 0; }
.facts-inline div { display: flex; gap: 4px; }
.facts-inline dt { color: var(--muted); }
.facts-inline dt::after { content: ":"; }
.facts-inline dd { margin: 0; overflow-wrap: anywhere; }

.card { background: #fff; border: 1px solid var(--line); border-radius: var(--radius); padding: 12px; margin: 0 0 12px; }
.card .table-scroll { margin-top: 8px; }
.delivery-failed, .delivery-dead { border-left: 4px solid var(--danger); }
.status-text { text-transform: uppercase; font-size: 0.85rem; letter-spacing: 0.04em; }

/* Buyers and sources: limits, row actions, the one-time secret, history */
.limits { list-style: none; margin: 0; padding: 0; }
.limits li { display: flex; align-items: center; gap: 8px; }
.limits meter { width: 80px; height: 12px; }
.row-actions { display: flex; flex-wrap: nowrap; align-items: center; gap: 6px; white-space: nowrap; }
.detail-actions { margin: 0 0 16px; }
.button-form { margin: 0; }
.breadcrumb { margin: 0 0 4px; font-size: 0.875rem; }
.status-badge { margin: 0; }
.status-badge strong, .buyer-status, .source-status { text-transform: uppercase; letter-spacing: 0.04em; }
tr.status-paused th, tr.status-paused td { background: #fffbeb; }
.archived { margin-top: 20px; }
.archived summary { cursor: pointer; min-height: 44px; display: list-item; }
.archived summary h2 { display: inline; font-size: 1.1rem; }
.one-time-secret { background: #fffbeb; border: 2px solid var(--accent); border-radius: var(--radius); padding: 12px; margin: 0 0 16px; }
.one-time-secret h2 { margin-top: 0; }
.secret-value { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 1rem; min-height: 44px; padding: 8px; width: 100%; max-width: 560px; display: block; margin-top: 4px; }
.fingerprint { font-size: 0.85rem; }
.visually-hidden { position: absolute; width: 1px; height: 1px; margin: -1px; padding: 0; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; border: 0; }
.spec-stage h3, .spec-preview h3 { margin-bottom: 4px; }
.spec-answer { margin: 4px 0 12px; padding-left: 22px; }
.spec-form textarea { min-height: 240px; font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 0.85rem; }
.spec-problems { margin: 4px 0 0; padding-left: 18px; }
.masked-request { background: var(--surface); border: 1px solid var(--line); border-radius: var(--radius); padding: 10px; overflow-x: auto; white-space: pre-wrap; overflow-wrap: anywhere; font-size: 0.8rem; max-height: 480px; }
.not-sent { font-size: 1rem; }
.test-exchange h3, .test-lead-result h3 { margin-bottom: 4px; }
.test-reading { font-size: 1rem; }
.request-sent summary { cursor: pointer; }
.credentials .attention { color: var(--danger); }
.data-table td.wrap, .wrap { white-space: normal; overflow-wrap: anywhere; }
.changes { margin: 0; padding-left: 18px; min-width: 260px; }
.change { margin: 0; min-width: 260px; }
/* A buyer that is not taking leads says so under its name, before anything else. */
.status-notice { margin: 0 0 16px; padding: 10px 12px; border-radius: var(--radius); border: 1px solid; border-left-width: 6px; }
.status-notice-paused { background: #fffbeb; border-color: #b45309; color: #78350f; }
.status-notice-archived { background: var(--surface); border-color: var(--muted); color: var(--ink); }
.closed-now { font-weight: 700; }
.consequences { background: #fff; border: 1px solid var(--line); border-radius: var(--radius); padding: 12px 12px 12px 32px; }

/* The buyer and source forms */
.settings-form { display: grid; gap: 16px; max-width: 1000px; }
.form-group, .check-group { background: #fff; border: 1px solid var(--line); border-radius: var(--radius); padding: 12px; margin: 0; min-width: 0; }
.form-group legend, .check-group legend { font-weight: 700; padding: 0 4px; }
.form-group .form-group { border-color: var(--line-soft); }
.form-grid { display: grid; grid-template-columns: 1fr; gap: 12px; }
.form-grid > .form-group, .form-grid > .check-group, .form-grid > .field-wide { grid-column: 1 / -1; }
.check-options { display: flex; flex-wrap: wrap; gap: 0 16px; }
.check-options .field-check, .field > .field-check { display: flex; }
.form-group > .hint, .check-group > .hint, .form-group > .field-error, .check-group > .field-error { margin-bottom: 8px; }
.check-group-compact .field-check { min-height: 36px; }
.hint { margin: 0; color: var(--muted); font-size: 0.85rem; }
.field-error { margin: 0; color: var(--danger); font-size: 0.875rem; }
.field input[aria-invalid="true"], .field select[aria-invalid="true"], .field textarea[aria-invalid="true"] { border: 2px solid var(--danger); }
.field input[type="url"], .field input[type="tel"] {
  font: inherit; min-height: 44px; padding: 8px 10px; width: 100%;
  border: 1px solid #6b7280; border-radius: var(--radius); background: #fff; color: var(--ink);
}
.form-actions { display: flex; flex-wrap: wrap; align-items: center; gap: 8px 12px; margin: 0; }
/*
 * A buyer's form is about 4,600 px tall: its Save stays in view at the bottom of the window
 * (issue 42, item 8), as the settings pages of large consoles keep theirs. It is the form's last
 * element, so the tab order still reaches it after the last field, and Enter in a field still
 * submits with it (the form's first button). Scrolling a focused field into view keeps it above
 * the bar (scroll-padding), so the bar never hides the field being typed in (WCAG 2.4.11).
 */
html:has(.settings-form) { scroll-padding-bottom: 96px; }
.settings-form > .form-actions {
  position: sticky; bottom: 0; z-index: 5;
  background: #fff; border: 1px solid var(--line); border-bottom: 0; border-radius: var(--radius) var(--radius) 0 0;
  padding: 10px 12px; box-shadow: 0 -4px 12px rgba(31, 41, 55, 0.12);
}
.form-errors a { color: var(--danger); }

/* Charts */
.charts { display: grid; grid-template-columns: 1fr; gap: 16px; margin-top: 20px; }
.chart { margin: 0; background: #fff; border: 1px solid var(--line); border-radius: var(--radius); padding: 12px; min-width: 0; }
.chart figcaption { font-weight: 700; margin-bottom: 8px; }
/* On a narrow phone the chart keeps a readable size and scrolls inside its own box. */
.chart-canvas { overflow-x: auto; }
.chart-svg { display: block; width: 100%; min-width: 420px; height: auto; }
/* The funnel is drawn narrow enough to fit a phone whole. */
.chart-funnel .chart-svg { min-width: 0; }
.chart-label, .chart-value, .chart-tick { font-family: inherit; fill: var(--ink); }
.chart-label { font-size: 13px; }
.chart-value { font-size: 13px; font-weight: 700; }
.chart-tick { font-size: 12px; fill: var(--muted); }
.funnel-track { fill: var(--surface); }
.funnel-bar { fill: var(--brand); }
.grid-line { stroke: var(--line-soft); stroke-width: 1; }
.axis-line { stroke: #6b7280; stroke-width: 1; }
.chart-legend { list-style: none; display: flex; flex-wrap: wrap; gap: 4px 16px; margin: 8px 0 0; padding: 0; font-size: 0.875rem; }
.chart-legend li { display: inline-flex; align-items: center; gap: 6px; }
.chart-data { margin-top: 8px; }
.chart-data summary { cursor: pointer; color: var(--brand-dark); font-size: 0.875rem; min-height: 32px; display: list-item; }

/* Where visitors leave the form: one table per source, folded (a source's summary line says enough to pick one). */
.screen-funnel h3 { margin-top: 16px; }
.screen-funnel .table-scroll { max-width: 720px; }
.screen-funnel-source { margin: 8px 0; }
.screen-funnel-source summary { cursor: pointer; color: var(--brand-dark); min-height: 32px; display: list-item; }
.screen-funnel-source .table-scroll { margin-top: 4px; }

/* Sign-in */
.sign-in-main { min-height: 100vh; display: flex; align-items: flex-start; justify-content: center; padding: 32px 12px; }
.sign-in-card { width: 100%; max-width: 380px; background: #fff; border: 1px solid var(--line); border-radius: var(--radius); padding: 20px; }
.sign-in-brand { margin: 0 0 16px; }
.sign-in-form { display: grid; gap: 12px; }

@media (min-width: 720px) {
  .console-bar { padding: 8px 20px; }
  .console-nav ul { padding: 0 14px; }
  .console-main { padding: 20px 20px 48px; }
  .query-form { grid-template-columns: repeat(3, minmax(0, 1fr)); }
  .facts { grid-template-columns: 1fr 1fr; }
  .form-grid { grid-template-columns: repeat(2, minmax(0, 1fr)); }
  .sign-in-main { align-items: center; }
}

@media (min-width: 1100px) {
  h1 { font-size: 1.5rem; }
  .query-form { grid-template-columns: repeat(4, minmax(0, 1fr)) auto auto auto; }
  .query-form .field-submit, .query-form .field-check { grid-column: auto; }
  .charts { grid-template-columns: repeat(2, minmax(0, 1fr)); }
  .form-grid { grid-template-columns: repeat(3, minmax(0, 1fr)); }
  .charts .chart-funnel { grid-column: 1 / -1; }
  .chart-funnel .chart-svg { max-width: 640px; }
}
`;
