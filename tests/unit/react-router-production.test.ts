/**
 * build/react-router-production.ts: the browser bundle takes React Router's production build and
 * lets the bundler drop the components the app never renders. The assumptions it rests on are
 * checked against the installed package, so an upgrade that breaks them fails here.
 */
import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { markRouterPure, productionTwin } from "../../build/react-router-production";

const developmentEntry = fileURLToPath(import.meta.resolve("react-router"));
const developmentDir = path.dirname(developmentEntry);
const productionDir = path.dirname(productionTwin(developmentEntry));

describe("the production twin", () => {
  it("is the same file under dist/production for the entries the app imports", () => {
    expect(productionTwin(developmentEntry)).toBe(path.join(productionDir, "index.mjs"));
    const dom = fileURLToPath(import.meta.resolve("react-router/dom"));
    expect(productionTwin(dom)).toBe(path.join(productionDir, "dom-export.mjs"));
  });

  it("differs from the development build only in its dev-warnings switch", () => {
    const normalize = (text: string) => text.replace(/var ENABLE_DEV_WARNINGS = (true|false);/g, "var ENABLE_DEV_WARNINGS;").replace(/chunk-[A-Z0-9]+\.mjs/g, "chunk.mjs");
    const modules = (dir: string) => readdirSync(dir).filter((name) => name.endsWith(".mjs")).sort();
    const developmentModules = modules(developmentDir);
    const productionModules = modules(productionDir);
    expect(productionModules.map((name) => name.replace(/chunk-[A-Z0-9]+/, "chunk"))).toEqual(developmentModules.map((name) => name.replace(/chunk-[A-Z0-9]+/, "chunk")));
    let switches = 0;
    developmentModules.forEach((name, index) => {
      const development = readFileSync(path.join(developmentDir, name), "utf8");
      const production = readFileSync(path.join(productionDir, productionModules[index]!), "utf8");
      if (production.includes("var ENABLE_DEV_WARNINGS = false;")) switches += 1;
      expect(normalize(production), name).toBe(normalize(development));
    });
    expect(switches).toBeGreaterThan(0);
  });

  it("refuses a path that is not a development build, rather than ship it", () => {
    expect(() => productionTwin("/somewhere/react-router/dist/index.mjs")).toThrow(/package layout changed/);
    expect(() => productionTwin("/nowhere/dist/development/index.mjs")).toThrow(/missing/);
  });
});

describe("marking the router's components pure", () => {
  it("annotates top-level forwardRef, createContext and memo calls and drops displayName writes", () => {
    const code = [
      'var Link = React10.forwardRef(function LinkWithRef() {});',
      'Link.displayName = "Link";',
      "var RouteContext = React.createContext(null);",
      'RouteContext.displayName = "Route";',
      "var MemoizedDataRoutes = React3.memo(DataRoutes2);",
      "let value = React.useContext(RouteContext);",
      "",
    ].join("\n");
    const result = markRouterPure(code, "/x/chunk.mjs");
    expect(result?.code).toBe(
      [
        "var Link = /* @__PURE__ */ React10.forwardRef(function LinkWithRef() {});",
        "var RouteContext = /* @__PURE__ */ React.createContext(null);",
        "var MemoizedDataRoutes = /* @__PURE__ */ React3.memo(DataRoutes2);",
        "let value = React.useContext(RouteContext);",
        "",
      ].join("\n"),
    );
    expect(result?.map.mappings).not.toBe("");
  });

  it("leaves a module without such code alone", () => {
    expect(markRouterPure("export const x = 1;\n", "/x/index.mjs")).toBeNull();
  });

  it("finds every component of the installed package, leaving no displayName write behind", () => {
    const chunks = readdirSync(productionDir).filter((name) => /^chunk-.*\.mjs$/.test(name));
    let annotated = 0;
    for (const name of chunks) {
      const code = readFileSync(path.join(productionDir, name), "utf8");
      const result = markRouterPure(code, name)?.code ?? code;
      expect(result).not.toMatch(/^[\w$]+\.displayName = /m);
      expect(result).not.toMatch(/=\s*React\d*\.(forwardRef|createContext|memo)\(/);
      annotated += result.split("/* @__PURE__ */ React").length - code.split("/* @__PURE__ */ React").length;
    }
    expect(annotated).toBeGreaterThan(10);
  });
});
