/** The browser entry: hydrates the server's HTML with the same routes and the server's router state. */
import { StrictMode, startTransition } from "react";
import { hydrateRoot } from "react-dom/client";
import { createBrowserRouter, matchRoutes, RouterProvider, type RouteObject } from "react-router-dom";
import { routes } from "./routes";
import "./styles.css";

/**
 * Code-split routes (`lazy`, e.g. the legal pages) that the current address matches are loaded
 * before hydration, as React Router documents for SSR: the server rendered them complete, so
 * the first client render must have their components too, or React would find nothing to
 * match the server's HTML and replace it (a flash and a hydration error). The route table's
 * `lazy` is always a function (client/routes.tsx); the object form is not handled, which keeps
 * the landing page's JavaScript within its budget (decision 027's −22 B, taken for issue 45's
 * experiment knobs).
 */
async function resolveLazyRoutes(table: RouteObject[], location: Location): Promise<void> {
  const matches = matchRoutes(table, location) ?? [];
  await Promise.all(
    matches.map(async ({ route }) => {
      const { lazy } = route;
      if (typeof lazy === "function") Object.assign(route, { ...(await lazy()), lazy: undefined });
    }),
  );
}

/** Ends the current task so the browser can handle input and paint before the next piece of start-up work. */
const nextTask = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

async function hydrate(): Promise<void> {
  const container = document.getElementById("root");
  if (!container) throw new Error("The page has no #root element to hydrate");
  try {
    await resolveLazyRoutes(routes, window.location);
  } catch {
    // A chunk that failed to load: the router loads the route again itself and shows the error page if it still fails.
  }
  // Start-up is three tasks, not one: evaluating the bundle, creating the router, hydrating. In one
  // task they held a phone's main thread ~130 ms (Lighthouse's 4× slowdown of 33 ms here); split,
  // the longest piece is ~22 ms here, and a tap or paint can come between them.
  await nextTask();
  const router = createBrowserRouter(routes);
  await nextTask();
  // As a transition, hydration yields to the browser every few milliseconds instead of holding
  // the main thread until the whole page is hydrated: a tap or keystroke meanwhile is answered at
  // once (no long task; issue 12's Lighthouse TBT). The page was usable before: it is server-rendered.
  startTransition(() => {
    hydrateRoot(
      container,
      <StrictMode>
        <RouterProvider router={router} />
      </StrictMode>,
    );
  });
}

void hydrate();
