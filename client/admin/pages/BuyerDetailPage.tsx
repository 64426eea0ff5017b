/**
 * One buyer (GET /buyers/:id): its status and usage, every setting (the secret only as a
 * fingerprint), its posting spec and credentials (fingerprints only), its deliveries in flight and
 * its history. Right after a create or a rotation the new secret is shown here once, in this one
 * answer. Ops also get edit, pause/resume, archive, the rotation form with its overlap, the spec's
 * edit form, the credential form and the spec's preview (BuyerSpecSection).
 */
import { buyerPaths, adminPaths, type BuyerDetailView } from "../../../shared/admin-views";
import { AdminLayout } from "../AdminLayout";
import { CsrfField } from "../CsrfField";
import { formatCount, formatMoney, formatTime } from "../format";
import { HistoryTable, LimitsList, openNowText, StatusButton } from "../SettingsParts";
import { BuyerSpecSection } from "../BuyerSpecSection";

export function BuyerDetailPage({ view }: { view: BuyerDetailView }) {
  const { buyer, session } = view;
  const paths = buyerPaths(buyer.id);
  const isOps = session?.role === "ops";
  const rotateId = "rotate-overlap";
  return (
    <AdminLayout session={session} flash={view.flash} current="buyers">
      <p className="breadcrumb">
        <a href={adminPaths.buyers}>Buyers</a> / {buyer.id}
      </p>
      <div className="page-heading">
        <h1>
          {buyer.name} <span className="muted">({buyer.id})</span>
        </h1>
        <p className={`status-badge status-${buyer.status}`}>
          Status: <strong className="buyer-status">{buyer.status}</strong>
        </p>
      </div>

      {buyer.status !== "active" ? (
        <p className={`status-notice status-notice-${buyer.status}`}>
          {buyer.status === "paused" ? (
            <>
              <strong>Paused:</strong> it is offered no leads until resumed. Its deliveries in flight still finish.
            </>
          ) : (
            <>
              <strong>Archived:</strong> it is offered no more leads; its history, deliveries and returns are kept{isOps ? ", and Restore offers it leads again" : ""}.
            </>
          )}
        </p>
      ) : null}

      {view.oneTimeSecret ? (
        <section className="one-time-secret" aria-labelledby="secret-title">
          <h2 id="secret-title">{view.oneTimeSecret.reason === "created" ? "The buyer's secret" : "The buyer's new secret"}</h2>
          <p>
            Copy it now and hand it to the buyer over a safe channel: <strong>it is shown only this once</strong>; afterwards the console shows its fingerprint only.
          </p>
          <p>
            <label htmlFor="one-time-secret">Secret</label>
            <input id="one-time-secret" className="secret-value" type="text" readOnly value={view.oneTimeSecret.secret} size={48} />
          </p>
          {view.oneTimeSecret.reason === "rotated" ? (
            <p className="previous-until">
              {view.oneTimeSecret.previousUntil ? (
                <>
                  The old secret still signs and verifies until <time dateTime={view.oneTimeSecret.previousUntil}>{formatTime(view.oneTimeSecret.previousUntil)}</time>.
                </>
              ) : (
                "The old secret stopped working now (no overlap)."
              )}
            </p>
          ) : null}
        </section>
      ) : null}

      {isOps && session ? (
        <div className="row-actions detail-actions">
          <a href={paths.edit} className="button">
            Edit settings
          </a>
          {buyer.status === "active" ? <StatusButton session={session} action={paths.status} status="paused" label="Pause" /> : <StatusButton session={session} action={paths.status} status="active" label={buyer.status === "archived" ? "Restore" : "Resume"} />}
          {buyer.status !== "archived" ? <StatusButton session={session} action={paths.status} status="archived" label="Archive" danger /> : null}
        </div>
      ) : null}

      <section aria-labelledby="usage-title">
        <h2 id="usage-title">This period</h2>
        <dl className="facts">
          <div>
            <dt>Caps and budget</dt>
            <dd>
              <LimitsList name={buyer.name} limits={buyer.limits} />
            </dd>
          </div>
          <div>
            <dt>Today</dt>
            <dd>{formatCount(buyer.today)} leads</dd>
          </div>
          <div>
            <dt>Deliveries in flight</dt>
            <dd className="in-flight">{formatCount(view.inFlight)}</dd>
          </div>
          <div>
            <dt>Revenue (30 days)</dt>
            <dd>{formatMoney(buyer.revenue30d)}</dd>
          </div>
          <div>
            <dt>Open now</dt>
            <dd className={buyer.open ? undefined : "closed-now"}>{openNowText(buyer)}</dd>
          </div>
        </dl>
      </section>

      <section aria-labelledby="settings-title">
        <h2 id="settings-title">Settings (revision {view.revision})</h2>
        <dl className="facts settings-list">
          {view.settings.map((row) => (
            <div key={row.label}>
              <dt>{row.label}</dt>
              <dd>{row.value}</dd>
            </div>
          ))}
          <div>
            <dt>Secret</dt>
            <dd>
              <code className="fingerprint">{view.secretFingerprint}</code>
            </dd>
          </div>
          {view.previous ? (
            <div>
              <dt>Previous secret</dt>
              <dd>
                <code className="fingerprint">{view.previous.fingerprint}</code> still works until <time dateTime={view.previous.until}>{formatTime(view.previous.until)}</time>
              </dd>
            </div>
          ) : null}
        </dl>
      </section>

      {isOps && session ? (
        <section aria-labelledby="rotate-title">
          <h2 id="rotate-title">Rotate the secret</h2>
          <p>A new secret is made and shown once. The old one keeps signing and verifying for the overlap you choose, so the buyer can switch without losing a lead.</p>
          <form method="post" action={paths.rotateSecret} className="inline-form">
            <CsrfField token={session.csrfToken} />
            <input type="hidden" name="revision" value={view.revision} />
            <div className="field">
              <label htmlFor={rotateId}>Overlap (hours, 0–168)</label>
              <input
                id={rotateId}
                name="overlapHours"
                type="text"
                inputMode="numeric"
                defaultValue="24"
                aria-invalid={view.rotateError ? true : undefined}
                aria-describedby={view.rotateError ? `${rotateId}-error` : undefined}
              />
              {view.rotateError ? (
                <p id={`${rotateId}-error`} className="field-error">
                  <strong>Error:</strong> {view.rotateError}
                </p>
              ) : null}
            </div>
            <button type="submit" className="button-danger">
              Rotate secret
            </button>
          </form>
        </section>
      ) : null}

      <BuyerSpecSection view={view} />

      <section aria-labelledby="history-title">
        <h2 id="history-title">History</h2>
        <HistoryTable rows={view.history} what={`buyer ${buyer.id}`} />
      </section>
    </AdminLayout>
  );
}
