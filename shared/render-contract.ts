/**
 * The contract between the server and the React server entry: the server asks for a page,
 * the entry answers with a redirect or a document it can stream. Types only; no runtime code.
 */
import type { PipeableStream, RenderToPipeableStreamOptions } from "react-dom/server";
import type { RenderAdmin } from "./admin-views";
import type { KnobValues } from "./experiments";

export interface PageMeta {
  title: string;
  description: string;
  /** Pages that must not be indexed (the 404 and error pages, the quote frame host). */
  noindex?: boolean;
}

export type RenderCallbacks = Pick<
  RenderToPipeableStreamOptions,
  "onShellReady" | "onShellError" | "onAllReady" | "onError"
>;

/** What receiving a privacy request can come to (server/privacy/service.ts). */
export type PrivacySubmitOutcome =
  | { kind: "created"; reference: string; dueAt: string }
  | { kind: "duplicate"; reference: string }
  | { kind: "invalid"; errors: Partial<Record<string, string>> }
  | { kind: "expired" };

/**
 * What the server lends the routes' loaders and actions while rendering on the server
 * (React Router's requestContext). In the browser there is none: routes use the HTTP API.
 */
export interface ServerContext {
  privacy: {
    /** The visitor's CSRF token (sets the cookie when needed). */
    csrfToken(): string;
    /** Whether the request carried the Global Privacy Control signal. */
    gpc: boolean;
    submit(raw: Record<string, unknown>, submissionId: unknown): Promise<PrivacySubmitOutcome>;
  };
  /**
   * This page view's visit id (shared/campaign.ts, `vid`): the address's when it carried a valid
   * one, else minted for this render. The landing and quote pages pass it on (the ZIP form's
   * hidden input, the frame's address). Set by server/pages/render.ts for every render; optional
   * because the services above are built before it is known.
   */
  visitId?: string;
  /**
   * The landing page's knobs this visitor's variants change (issue 45; server/experiments/): only
   * the values that differ from the control's, so a page without an experiment is the same
   * document as before. Absent: the control everywhere.
   */
  knobs?: LandingKnobs;
}

/** What an experiment may change on the landing page (shared/experiments.ts, KNOBS), as the page receives it. */
export type LandingKnobs = Partial<Pick<KnobValues, "landing.headline" | "landing.buttonText" | "landing.carrierLogos">>;

export type PreparedPage =
  | { type: "redirect"; status: number; location: string }
  | {
      type: "document";
      status: number;
      meta: PageMeta;
      /** False for pages made for one visitor (forms with tokens): never cached or stored. */
      cacheable: boolean;
      /** Starts React's stream; every inline script it writes carries `nonce`. */
      render(nonce: string, callbacks: RenderCallbacks): PipeableStream;
    };

export interface EntryServer {
  prepare(request: Request, context?: ServerContext): Promise<PreparedPage>;
  /**
   * The operations console's pages as whole documents (client/admin/). Optional in the type only
   * so test doubles of the site's entry need not provide it; the real entry always exports it.
   */
  renderAdmin?: RenderAdmin;
}
