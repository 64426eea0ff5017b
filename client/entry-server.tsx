/**
 * The React server entry: runs the data router for a request and streams the matched page.
 * The server (server/pages/render.ts) owns HTTP; this module owns React.
 */
import { StrictMode } from "react";
import { renderToPipeableStream } from "react-dom/server";
import { createStaticHandler, createStaticRouter, StaticRouterProvider, isRouteErrorResponse } from "react-router-dom";
import { routes } from "./routes";
import { errorMeta, isNoStore, metaFromMatches, notFoundMeta } from "./page-meta";
import type { EntryServer, PreparedPage } from "../shared/render-contract";

/** The operations console's pages (client/admin/): same entry, so the server loads React once. */
export { renderAdmin } from "./admin/render-admin";

const handler = createStaticHandler(routes);

export const prepare: EntryServer["prepare"] = async (request, serverContext) => {
  // The server's services reach loaders and actions as their `context` argument.
  const context = await handler.query(request, { requestContext: serverContext });
  if (context instanceof Response) {
    return { type: "redirect", status: context.status, location: context.headers.get("Location") ?? "/" };
  }
  const errors = context.errors ? Object.values(context.errors) : [];
  const notFound = errors.some((error) => isRouteErrorResponse(error) && error.status === 404);
  // With each route's loader data: a page's title may follow it (client/page-meta.ts).
  const handles = context.matches.map((match) => ({ handle: match.route.handle, data: context.loaderData[match.route.id] }));
  const meta = notFound
    ? notFoundMeta
    : errors.length > 0
      ? errorMeta
      : (metaFromMatches(handles) ?? errorMeta);
  const router = createStaticRouter(handler.dataRoutes, context);
  const page: PreparedPage = {
    type: "document",
    status: context.statusCode,
    meta,
    cacheable: request.method === "GET" && !isNoStore(handles),
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
