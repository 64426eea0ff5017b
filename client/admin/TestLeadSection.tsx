/**
 * "Send a test lead" on a buyer's page (ops, issue 43, item 5): the button, and in the answer to it
 * what was sent (masked), what the buyer answered (status, headers of interest, the body's first
 * few KB as text) and how its answer rules read it, for the ping and the post of a ping/post buyer.
 * A plain form, no script; the result's heading takes the focus so it is announced after the post.
 */
import type { AdminSession, BuyerDetailView, TestExchangeView, TestLeadView } from "../../shared/admin-views";
import { buyerPaths } from "../../shared/admin-views";
import { CsrfField } from "./CsrfField";
import { SentRequest } from "./SentRequest";

const STAGE_NAMES = { post: "Post", ping: "Ping" } as const;

function Exchange({ exchange }: { exchange: TestExchangeView }) {
  const titleId = `test-${exchange.stage}-title`;
  const name = STAGE_NAMES[exchange.stage];
  return (
    <section aria-labelledby={titleId} className="test-exchange" data-stage={exchange.stage}>
      <h3 id={titleId}>
        {name}, in {exchange.format}
      </h3>
      <p className={`test-reading reading-${exchange.reading.kind}`} data-reading={exchange.reading.kind}>
        <strong>How it was read:</strong> {exchange.reading.text}
      </p>
      {exchange.request ? (
        <>
          <h4>Request as sent (credentials hidden, contact masked)</h4>
          <SentRequest request={exchange.request} label={`The test ${exchange.stage} as sent, masked`} />
        </>
      ) : null}
      {exchange.answer ? (
        <>
          <h4>
            Answer: HTTP {exchange.answer.status} in {exchange.answer.latencyMs} ms
          </h4>
          {exchange.answer.headers.length > 0 ? (
            <dl className="facts-inline test-answer-headers">
              {exchange.answer.headers.map((header) => (
                <div key={header.name}>
                  <dt>{header.name}</dt>
                  <dd>{header.value}</dd>
                </div>
              ))}
            </dl>
          ) : null}
          {exchange.answer.body === "" ? (
            <p className="muted">The answer has no body.</p>
          ) : (
            <pre className="masked-request test-answer-body" tabIndex={0} aria-label={`The buyer's answer to the test ${exchange.stage}`}>
              <code>{exchange.answer.body}</code>
            </pre>
          )}
          {exchange.answer.truncated ? <p className="hint">Only the answer&apos;s first few KB are shown.</p> : null}
        </>
      ) : exchange.transportError ? (
        <p className="field-error test-transport">
          <strong>No answer:</strong> {exchange.transportError}
        </p>
      ) : null}
    </section>
  );
}

function Result({ result }: { result: TestLeadView }) {
  return (
    <div className="test-lead-result">
      <h3 id="test-lead-result-title" tabIndex={-1} autoFocus>
        Test lead {result.reference}
      </h3>
      <p className="hint">
        Sent <time dateTime={result.sentAt}>{result.sentAt}</time>. Not stored, not billed, not counted in any report.
      </p>
      {result.exchanges.map((exchange) => (
        <Exchange key={exchange.stage} exchange={exchange} />
      ))}
    </div>
  );
}

/** Ops only: the button, and the last test's result when this page answers it. */
export function TestLeadSection({ view, session }: { view: BuyerDetailView; session: AdminSession }) {
  const pingpost = view.buyer.mode === "pingpost";
  return (
    <section aria-labelledby="test-lead-title" id="test-lead">
      <h2 id="test-lead-title">Send a test lead</h2>
      <p id="test-lead-hint">
        A made-up lead (reference LD-TEST-…, the test phone number (201) 555-0199) marked as a test the way this buyer takes one, sent to its real
        address{pingpost ? ": pinged first, and posted only if it bids" : ""}. It is not stored and not billed. At most one at a time per buyer, and a few a minute.
      </p>
      <form method="post" action={`${buyerPaths(view.buyer.id).testLead}#test-lead`} className="inline-form">
        <CsrfField token={session.csrfToken} />
        <button type="submit" className="button-secondary" aria-describedby="test-lead-hint">
          Send a test lead to {view.buyer.name}
        </button>
      </form>
      {view.testLead ? <Result result={view.testLead} /> : null}
    </section>
  );
}
