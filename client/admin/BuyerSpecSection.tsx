/**
 * A buyer's posting spec on its page (issue 43): each stage in words (format, method, where it
 * goes, authentication with the credential's name, the field map "to ← from (transforms)", the
 * answer rules as sentences), its credentials by name and fingerprint (never a value), and for ops
 * the credential form, the spec's JSON edit form (each problem beside its textarea, named by its
 * path in the spec), the live preview of the masked request for a lead, and "Send a test lead"
 * (TestLeadSection). Plain forms, no script.
 */
import type { AdminSession, BuyerDetailView, SpecPreviewResult, SpecStage, SpecStageView } from "../../shared/admin-views";
import { buyerPaths } from "../../shared/admin-views";
import { CsrfField } from "./CsrfField";
import { TestLeadSection } from "./TestLeadSection";

const STAGE_NAMES: Record<SpecStage, string> = { post: "Post", ping: "Ping" };

function StageSpec({ stage }: { stage: SpecStageView }) {
  const titleId = `spec-${stage.stage}-title`;
  return (
    <section aria-labelledby={titleId} className="spec-stage" data-stage={stage.stage}>
      <h3 id={titleId}>{STAGE_NAMES[stage.stage]}</h3>
      <dl className="facts settings-list">
        <div>
          <dt>Format</dt>
          <dd className="spec-format">{stage.formatText}</dd>
        </div>
        <div>
          <dt>Sent to</dt>
          <dd>
            {stage.method ? `${stage.method} ` : ""}
            <code>{stage.url}</code>
          </dd>
        </div>
        <div>
          <dt>Authentication</dt>
          <dd className="spec-auth">{stage.auth}</dd>
        </div>
        {stage.contentType ? (
          <div>
            <dt>Content type</dt>
            <dd>{stage.contentType}</dd>
          </div>
        ) : null}
        {stage.headers.length > 0 ? (
          <div>
            <dt>Constant headers</dt>
            <dd>{stage.headers.map((header) => `${header.name}: ${header.value}`).join(" · ")}</dd>
          </div>
        ) : null}
      </dl>
      {stage.format === "quoteridge" ? (
        <p className="muted">Our own JSON, signed with the buyer&apos;s secret, and our answers (docs/lead-delivery.md).</p>
      ) : (
        <>
          <div className="table-scroll" role="region" aria-labelledby={`${titleId}-fields`} tabIndex={0}>
            <table className="data-table spec-fields">
              <caption id={`${titleId}-fields`}>
                Field map of the {stage.stage}, in the order sent: the buyer&apos;s field ← what it is read from (transforms)
              </caption>
              <thead>
                <tr>
                  <th scope="col">Buyer&apos;s field</th>
                  <th scope="col">
                    <span aria-hidden="true">←</span>
                    <span className="visually-hidden">from</span>
                  </th>
                  <th scope="col">Read from</th>
                  <th scope="col">Transforms</th>
                </tr>
              </thead>
              <tbody>
                {stage.fields.map((row, index) => (
                  <tr key={`${row.to}-${index}`}>
                    <th scope="row">
                      <code>{row.to}</code>
                    </th>
                    <td aria-hidden="true">←</td>
                    <td className="wrap">{row.from}</td>
                    <td className="wrap">{row.transforms}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <h4>How its answer is read</h4>
          <ol className="spec-answer">
            {stage.answer.map((sentence, index) => (
              <li key={index}>{sentence}</li>
            ))}
          </ol>
        </>
      )}
    </section>
  );
}

function PreviewResult({ result }: { result: SpecPreviewResult }) {
  if (result.kind === "quoteridge") return <p className="muted">Our signed JSON (quoteridge): as every delivery today.</p>;
  if (result.kind === "not_sent") {
    return (
      <p className="not-sent field-error">
        <strong>Not sent:</strong> the lead has no <code>{result.missing}</code> (the buyer&apos;s field <code>{result.field}</code>){result.why ? `: ${result.why}` : ""}.
      </p>
    );
  }
  const head = [`${result.method} ${result.url}`, ...result.headers.map((header) => `${header.name}: ${header.value}`)].join("\n");
  return (
    <pre className="masked-request" tabIndex={0}>
      <code>
        {head}
        {result.body !== null ? `\n\n${result.body}` : ""}
      </code>
    </pre>
  );
}

function Preview({ view }: { view: BuyerDetailView }) {
  const preview = view.preview;
  if (!preview) return null;
  const paths = buyerPaths(view.buyer.id);
  return (
    <section aria-labelledby="preview-title" id="preview">
      <h2 id="preview-title">
        What {view.buyer.name} would receive{preview.reference ? ` for lead ${preview.reference}` : ""}
      </h2>
      <p>The request as the spec renders it, credentials hidden and the contact masked. Nothing is sent.</p>
      <form method="get" action={`${paths.detail}#preview`} className="inline-form">
        <div className="field">
          <label htmlFor="preview-lead">Lead reference</label>
          <input
            id="preview-lead"
            name="lead"
            type="text"
            defaultValue={preview.asked}
            placeholder="LD-7K3M-Q9XD"
            aria-invalid={preview.error ? true : undefined}
            aria-describedby={preview.error ? "preview-lead-error" : "preview-lead-hint"}
          />
          <p id="preview-lead-hint" className="hint">
            Empty: the newest lead.
          </p>
          {preview.error ? (
            <p id="preview-lead-error" className="field-error">
              <strong>Error:</strong> {preview.error}
            </p>
          ) : null}
        </div>
        <button type="submit" className="button-secondary">
          Preview
        </button>
      </form>
      {preview.stages.map((stage) => (
        <section key={stage.stage} aria-labelledby={`preview-${stage.stage}-title`} className="spec-preview" data-stage={stage.stage}>
          <h3 id={`preview-${stage.stage}-title`}>{STAGE_NAMES[stage.stage]}</h3>
          <PreviewResult result={stage.result} />
        </section>
      ))}
      {preview.notes.map((note) => (
        <p key={note} className="hint">
          {note}
        </p>
      ))}
    </section>
  );
}

function SpecForm({ view, session }: { view: BuyerDetailView; session: AdminSession }) {
  const paths = buyerPaths(view.buyer.id);
  const values = view.specForm?.values ?? view.spec.json;
  const errors = view.specForm?.errors ?? {};
  const stages: SpecStage[] = values.ping !== undefined ? ["post", "ping"] : ["post"];
  const firstInvalid = stages.find((stage) => (errors[stage]?.length ?? 0) > 0);
  return (
    <section aria-labelledby="spec-edit-title">
      <h3 id="spec-edit-title">Edit the posting spec</h3>
      <p className="hint">
        JSON, as docs/buyer-specs.md describes it. Leave a stage empty to send our signed JSON. A credential the spec names is set under Credentials, never in the spec.
      </p>
      <form method="post" action={paths.spec} className="settings-form spec-form">
        <CsrfField token={session.csrfToken} />
        <input type="hidden" name="revision" value={view.revision} />
        {stages.map((stage) => {
          const id = `f-spec-${stage}`;
          const problems = errors[stage] ?? [];
          return (
            <div className="field field-wide" key={stage}>
              <label htmlFor={id}>{STAGE_NAMES[stage]} spec (JSON)</label>
              <p id={`${id}-hint`} className="hint">
                {stage === "ping" ? "What a ping sends (no contact details) and how its bid is read." : "What a lead's post sends and how its answer is read."}
              </p>
              <textarea
                id={id}
                name={`spec.${stage}`}
                rows={16}
                spellCheck={false}
                defaultValue={values[stage] ?? ""}
                autoFocus={stage === firstInvalid ? true : undefined}
                aria-invalid={problems.length > 0 ? true : undefined}
                aria-describedby={problems.length > 0 ? `${id}-hint ${id}-error` : `${id}-hint`}
              />
              {problems.length > 0 ? (
                <div id={`${id}-error`} className="field-error">
                  <strong>Error{problems.length > 1 ? "s" : ""}:</strong>
                  <ul className="spec-problems">
                    {problems.map((problem, index) => (
                      <li key={index}>
                        {problem.path ? (
                          <>
                            <code>{problem.path}</code>:{" "}
                          </>
                        ) : null}
                        {problem.message}
                      </li>
                    ))}
                  </ul>
                </div>
              ) : null}
            </div>
          );
        })}
        <div className="form-actions">
          <button type="submit">Save the posting spec</button>
        </div>
      </form>
    </section>
  );
}

function Credentials({ view, session }: { view: BuyerDetailView; session: AdminSession | undefined }) {
  const isOps = session?.role === "ops";
  const form = view.credentialForm;
  const named = view.spec.credentials.map((credential) => credential.name);
  return (
    <section aria-labelledby="credentials-title">
      <h2 id="credentials-title">Credentials</h2>
      <p>The values the spec&apos;s authentication names (an API key, a token, a password), kept like the secret: shown only by their fingerprints, exported only with --with-secrets.</p>
      {view.spec.credentials.length === 0 ? (
        <p className="empty">No credentials.</p>
      ) : (
        <table className="data-table credentials">
          <caption className="visually-hidden">The buyer&apos;s credentials, by name and fingerprint</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Fingerprint</th>
              <th scope="col">Used by</th>
            </tr>
          </thead>
          <tbody>
            {view.spec.credentials.map((credential) => (
              <tr key={credential.name} data-credential={credential.name}>
                <th scope="row">
                  <code>{credential.name}</code>
                </th>
                <td>{credential.fingerprint ? <code className="fingerprint">{credential.fingerprint}</code> : <strong className="attention">not set</strong>}</td>
                <td>{credential.usedBy.length > 0 ? credential.usedBy.map((stage) => STAGE_NAMES[stage]).join(", ") : "no spec names it"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {isOps && session ? (
        <form method="post" action={buyerPaths(view.buyer.id).credentials} className="inline-form credential-form" autoComplete="off">
          <CsrfField token={session.csrfToken} />
          <div className="field">
            <label htmlFor="f-credential-name">Credential name</label>
            <input
              id="f-credential-name"
              name="name"
              type="text"
              list="credential-names"
              defaultValue={form?.name ?? ""}
              aria-invalid={form?.errors.name ? true : undefined}
              aria-describedby={form?.errors.name ? "f-credential-name-error" : undefined}
            />
            <datalist id="credential-names">
              {named.map((name) => (
                <option key={name} value={name} />
              ))}
            </datalist>
            {form?.errors.name ? (
              <p id="f-credential-name-error" className="field-error">
                <strong>Error:</strong> {form.errors.name}
              </p>
            ) : null}
          </div>
          <div className="field">
            <label htmlFor="f-credential-value">New value</label>
            <input
              id="f-credential-value"
              name="value"
              type="password"
              autoComplete="new-password"
              aria-invalid={form?.errors.value ? true : undefined}
              aria-describedby={form?.errors.value ? "f-credential-value-error" : "f-credential-value-hint"}
            />
            <p id="f-credential-value-hint" className="hint">
              Shown only as its fingerprint once saved.
            </p>
            {form?.errors.value ? (
              <p id="f-credential-value-error" className="field-error">
                <strong>Error:</strong> {form.errors.value}
              </p>
            ) : null}
          </div>
          <button type="submit" className="button-danger">
            Set or replace
          </button>
        </form>
      ) : null}
    </section>
  );
}

/** The posting spec, its credentials, and for ops the forms and the preview. */
export function BuyerSpecSection({ view }: { view: BuyerDetailView }) {
  const session = view.session;
  const isOps = session?.role === "ops";
  return (
    <>
      <section aria-labelledby="spec-title">
        <h2 id="spec-title">Posting spec</h2>
        {view.spec.stages.map((stage) => (
          <StageSpec key={stage.stage} stage={stage} />
        ))}
        {isOps && session ? <SpecForm view={view} session={session} /> : null}
      </section>
      <Credentials view={view} session={session} />
      {isOps ? <Preview view={view} /> : null}
      {isOps && session ? <TestLeadSection view={view} session={session} /> : null}
    </>
  );
}
