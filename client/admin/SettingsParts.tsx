/**
 * Pieces the buyers' and sources' pages share: a cap or budget against its usage in words, a
 * status button form, and the history table (each change in sentences naming who made it).
 */
import type { ReactNode } from "react";
import type { AdminSession, BuyerSummaryView, LimitUsageView, SettingsFormView, SettingsHistoryRowView } from "../../shared/admin-views";
import { AdminLayout } from "./AdminLayout";
import { CsrfField } from "./CsrfField";
import { ErrorSummary } from "./SettingsFields";
import { formatCount, formatMoney, formatTime } from "./format";

const PERIOD_NAMES: Record<LimitUsageView["period"], string> = { hour: "Hour", day: "Day", week: "Week", month: "Month" };

/** "Day 45 / 200", "Month $1,240.00 / $5,000.00". */
export function limitText(limit: LimitUsageView): string {
  const amount = limit.unit === "dollars" ? formatMoney : formatCount;
  return `${PERIOD_NAMES[limit.period]} ${amount(limit.used)} / ${amount(limit.limit)}`;
}

export function LimitsList({ name, limits }: { name: string; limits: LimitUsageView[] }) {
  if (limits.length === 0) return <span className="muted">No caps or budget</span>;
  return (
    <ul className="limits">
      {limits.map((limit) => (
        <li key={`${limit.unit}-${limit.period}`}>
          <span>{limitText(limit)}</span>{" "}
          <meter
            min={0}
            max={Math.max(limit.limit, 1)}
            low={limit.limit * 0.8}
            high={limit.limit * 0.95}
            optimum={0}
            value={Math.min(limit.used, limit.limit)}
            aria-label={`${name}: ${limitText(limit)} (${limit.unit === "dollars" ? "budget" : "cap"})`}
          />
        </li>
      ))}
    </ul>
  );
}

/**
 * Whether a buyer takes leads now, and why not (issue 42, item 8): a paused or archived buyer is
 * closed whatever its schedule says. `short` for the list's column, the sentence for its page.
 */
export function openNowText(buyer: Pick<BuyerSummaryView, "status" | "open">, short = false): string {
  if (buyer.status === "paused") return short ? "Closed (paused)" : "Closed: paused, it is offered no leads until resumed";
  if (buyer.status === "archived") return short ? "Closed (archived)" : "Closed: archived, it is offered no more leads";
  if (buyer.open) return "Open";
  return short ? "Closed (schedule)" : "Closed: outside its schedule";
}

/** One button that POSTs a status change (with the session's CSRF token). */
export function StatusButton({ session, action, status, label, danger }: { session: AdminSession; action: string; status: string; label: string; danger?: boolean }) {
  return (
    <form method="post" action={action} className="button-form">
      <CsrfField token={session.csrfToken} />
      <input type="hidden" name="status" value={status} />
      <button type="submit" className={danger ? "button-danger" : "button-secondary"}>
        {label}
      </button>
    </form>
  );
}

/** Each change as sentences ("Price rule Homeowners +$4.00 added by ana."), newest first. */
export function HistoryTable({ rows, what }: { rows: SettingsHistoryRowView[]; what: string }) {
  if (rows.length === 0) return <p className="empty">No changes recorded.</p>;
  return (
    <div className="table-scroll" role="region" aria-labelledby="history-caption" tabIndex={0}>
      <table className="data-table history-table">
        <caption id="history-caption">Every change to {what}, newest first; secrets only as fingerprints</caption>
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">What happened</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row, index) => (
            <tr key={`${row.at}-${index}`} data-action={row.action}>
              <td>
                <time dateTime={row.at}>{formatTime(row.at)}</time>
              </td>
              <td className="wrap">
                {row.sentences.length === 1 ? (
                  <p className="change">{row.sentences[0]}</p>
                ) : (
                  <ul className="changes">
                    {row.sentences.map((sentence, line) => (
                      <li key={line}>{sentence}</li>
                    ))}
                  </ul>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/**
 * A buyer's or a source's form page: the breadcrumb, the title, a 409's "someone else changed it",
 * every problem at the top, and the form with its CSRF token and the revision it was read at;
 * `children` are its fields, `actions` its buttons.
 */
export function SettingsFormPage({
  view,
  what,
  list,
  paths,
  title,
  action,
  labels,
  children,
  actions,
}: {
  view: SettingsFormView<"buyer-form" | "source-form">;
  what: "buyer" | "source";
  list: { href: string; label: string; current: "buyers" | "sources" };
  paths: ((key: string) => { detail: string; edit: string }) | undefined;
  title: string;
  action: string;
  labels: Record<string, string>;
  children: ReactNode;
  actions: ReactNode;
}) {
  const keyPaths = view.key && paths ? paths(view.key) : undefined;
  return (
    <AdminLayout session={view.session} flash={view.flash} current={list.current}>
      <p className="breadcrumb">
        <a href={list.href}>{list.label}</a>
        {keyPaths ? (
          <>
            {" "}
            / <a href={keyPaths.detail}>{view.key}</a>
          </>
        ) : null}
      </p>
      <h1>{title}</h1>
      {view.conflict ? (
        <p className="flash flash-error" role="alert">
          <strong>Not saved:</strong> someone else changed this {what} (now revision {view.conflict.currentRevision}).{" "}
          {keyPaths ? <a href={keyPaths.edit}>Open the current version</a> : null}
        </p>
      ) : null}
      <ErrorSummary errors={view.errors} labels={labels} />
      <form method="post" action={action} className="settings-form" noValidate>
        {view.session ? <CsrfField token={view.session.csrfToken} /> : null}
        {view.revision !== undefined ? <input type="hidden" name="revision" value={view.revision} /> : null}
        {children}
        <p className="form-actions">
          {actions} <a href={keyPaths ? keyPaths.detail : list.href}>Cancel</a>
        </p>
      </form>
    </AdminLayout>
  );
}
