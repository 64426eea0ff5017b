/**
 * Answers a console request with a page: the view gets the signed-in user (for the header and
 * every form's CSRF token) and the waiting flash message, and the React entry's renderAdmin
 * turns it into a whole document carrying this response's CSP nonce.
 */
import type { Request, Response } from "express";
import type { AdminView, RenderAdmin } from "../../shared/admin-views";
import type { FlashStore } from "./flash";

export type RenderView = (req: Request, res: Response, status: number, view: AdminView) => Promise<void>;

export function createRenderView(renderAdmin: () => Promise<RenderAdmin>, flash: FlashStore): RenderView {
  return async (req, res, status, view) => {
    const render = await renderAdmin();
    const session = res.locals.adminSession;
    const waiting = view.flash ?? flash.take(req, res);
    const html = render(
      { ...view, ...(session && view.page !== "sign-in" ? { session: { name: session.name, role: session.role, csrfToken: session.csrfToken } } : {}), ...(waiting ? { flash: waiting } : {}) },
      { nonce: res.locals.cspNonce },
    );
    res.status(status).type("html").send(html);
  };
}
