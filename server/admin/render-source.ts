/**
 * The console's renderer from the site's RenderSource: the same React server entry (the built
 * dist/server/entry-server.js in production, Vite's module in development) exports renderAdmin.
 */
import type { RenderAdmin } from "../../shared/admin-views";
import type { RenderSource } from "../pages/render-source";

export function renderAdminFrom(source: RenderSource): () => Promise<RenderAdmin> {
  return async () => {
    const { renderAdmin } = await source.entry();
    // An entry built before the console existed has none.
    if (typeof renderAdmin !== "function") throw new Error("The React server entry has no renderAdmin: rebuild with `npm run build`");
    return renderAdmin;
  };
}
