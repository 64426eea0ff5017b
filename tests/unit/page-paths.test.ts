/**
 * client/legal/LegalBody.tsx decides which links are pages of the app from shared/routes.ts's
 * page list (importing the route table there was an import cycle): the list must be the table's.
 */
import { describe, expect, it } from "vitest";
import type { RouteObject } from "react-router-dom";
import { routes } from "../../client/routes";
import { pagePaths } from "../../shared/routes";

function join(parent: string, path: string | undefined): string {
  if (path === undefined) return parent || "/";
  return path.startsWith("/") ? path : `${parent.replace(/\/$/, "")}/${path}`;
}

/** The full path of every page (a layout route with children is not a page of its own). */
function fullPaths(table: RouteObject[], parent = ""): string[] {
  return table.flatMap((route) => {
    const here = join(parent, route.index ? undefined : route.path);
    return route.children ? fullPaths(route.children, here) : [here];
  });
}

describe("pagePaths", () => {
  it("lists exactly the pages of the route table", () => {
    expect([...pagePaths].sort()).toEqual(fullPaths(routes).sort());
  });
});
