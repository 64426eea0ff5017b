/**
 * The React server entry: runs the data router for a request and streams the matched page.
 * The server (server/render.ts) owns HTTP; this module owns React.
 */
import { StrictMode } from "react";
import { renderToPipeableStream } from "react-dom/server";
import { createStaticHandler, createStaticRouter, StaticRouterProvider, isRouteErrorResponse } from "react-router-dom";
import { routes } from "./routes";
import { errorMeta, metaFromMatches, notFoundMeta } from "./page-meta";
import type { EntryServer, PreparedPage } from "./render-contract";

const handler = createStaticHandler(routes);

export const prepare: EntryServer["prepare"] = async (request) => {
  const context = await handler.query(request);
  if (context instanceof Response) {
    return { type: "redirect", status: context.status, location: context.headers.get("Location") ?? "/" };
  }
  const errors = context.errors ? Object.values(context.errors) : [];
  const notFound = errors.some((error) => isRouteErrorResponse(error) && error.status === 404);
  const meta = notFound
    ? notFoundMeta
    : errors.length > 0
      ? errorMeta
      : (metaFromMatches(context.matches.map((match) => ({ handle: match.route.handle }))) ?? errorMeta);
  const router = createStaticRouter(handler.dataRoutes, context);
  const page: PreparedPage = {
    type: "document",
    status: context.statusCode,
    meta,
    render: (nonce, callbacks) =>
      renderToPipeableStream(
        <StrictMode>
          <StaticRouterProvider router={router} context={context} nonce={nonce} />
        </StrictMode>,
        { nonce, ...callbacks },
      ),
  };
  return page;
};
