/**
 * The contract between the server and the React server entry: the server asks for a page,
 * the entry answers with a redirect or a document it can stream. Types only; no runtime code.
 */
import type { PipeableStream, RenderToPipeableStreamOptions } from "react-dom/server";

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

export type PreparedPage =
  | { type: "redirect"; status: number; location: string }
  | {
      type: "document";
      status: number;
      meta: PageMeta;
      /** Starts React's stream; every inline script it writes carries `nonce`. */
      render(nonce: string, callbacks: RenderCallbacks): PipeableStream;
    };

export interface EntryServer {
  prepare(request: Request): Promise<PreparedPage>;
}
