/**
 * The project's import boundaries, checked by `npm run lint` (dependency-cruiser; see
 * docs/architecture.md, "Imports"). The whole tree is cruised from the root, limited to the
 * project's folders below, so a folder that does not exist (yet) is simply not there.
 * Type-only imports count: a boundary is about what a module knows, not only what it loads.
 * @type {import("dependency-cruiser").IConfiguration}
 */
/* global module -- CommonJS: dependency-cruiser loads this file with require() */
module.exports = {
  forbidden: [
    {
      // An import cycle makes module start-up order matter (a value read before it is set) and
      // ties the modules into one unit that cannot be split, tested or code-split apart.
      name: "no-circular",
      severity: "error",
      comment: "No import cycles anywhere, type-only imports included.",
      from: {},
      to: { circular: true },
    },
    {
      // shared/ is what both sides (and the build) agree on: it must stand alone, or the
      // browser bundle would pull in server code and the server would pull in React pages.
      name: "shared-stands-alone",
      severity: "error",
      comment: "shared/ imports only shared/ (and packages): nothing from client/, server/, build/, scripts/, tests/ or tools/.",
      from: { path: "^shared/" },
      to: { path: "^(client|server|build|scripts|tests|tools)/" },
    },
    {
      // The browser bundle must never contain server code (secrets, database, Node APIs).
      name: "client-not-to-server",
      severity: "error",
      comment: "client/ never imports server/; what both need lives in shared/.",
      from: { path: "^client/" },
      to: { path: "^server/" },
    },
    {
      // The server loads the built React entry at run time by file path (server/pages/render-source.ts)
      // or through Vite in development (server/pages/dev.ts): never by import, so no exception is needed.
      // The types between the two are in shared/render-contract.ts.
      name: "server-not-to-client",
      severity: "error",
      comment: "server/ never imports client/ (the SSR entry is loaded by path; the contract is shared/render-contract.ts).",
      from: { path: "^server/" },
      to: { path: "^client/" },
    },
    {
      // The build (Vite config and plugins) runs before any server exists; it reads shared
      // constants (the CSP nonce placeholder), never server modules.
      name: "build-not-to-server",
      severity: "error",
      comment: "vite.config.ts and build/ never import server/.",
      from: { path: "^(build/|vite\\.config\\.ts$)" },
      to: { path: "^server/" },
    },
    {
      // Production code ships in the image; tests, ops scripts and their tools do not.
      name: "production-not-to-dev-code",
      severity: "error",
      comment: "server/, client/ and shared/ never import tests/, scripts/ or tools/.",
      from: { path: "^(server|client|shared)/" },
      to: { path: "^(tests|scripts|tools)/" },
    },
    {
      // Scripts (bench, container checks) and tests are separate programs: what both need goes
      // in tools/, so neither breaks when the other changes.
      name: "scripts-not-to-tests",
      severity: "error",
      comment: "scripts/ never imports tests/; shared helpers live in tools/.",
      from: { path: "^scripts/" },
      to: { path: "^tests/" },
    },
    {
      // The other direction: a test must not break because a bench script changed.
      name: "tests-not-to-scripts",
      severity: "error",
      comment: "tests/ never imports scripts/; shared helpers live in tools/.",
      from: { path: "^tests/" },
      to: { path: "^scripts/" },
    },
    {
      // Rules live in the domain, SQL in repositories (docs/architecture.md, "Imports"): the
      // database layer stores and reads what it is given. Whether a lead is a test or a duplicate,
      // what a contact's suppression hashes are, a buyer's caps: the domain decides and passes
      // plain values (server/leads/store.ts, server/privacy/suppression.ts), so no business rule
      // hides in a statement and the repositories can be read without the wings above them.
      name: "db-not-to-domain",
      severity: "error",
      comment: "server/db/ never imports the domain or the web layer (leads, privacy, consent, auction, delivery, settings, analytics, admin, api, cli, routes, http, pages, vehicles).",
      from: { path: "^server/db/" },
      to: { path: "^server/(leads|privacy|consent|auction|delivery|settings|analytics|admin|api|cli|routes|http|pages|vehicles)/" },
    },
    {
      // tools/ is what tests and scripts share: it depends on neither, or the split is moot.
      name: "tools-not-to-tests-or-scripts",
      severity: "error",
      comment: "tools/ never imports tests/ or scripts/.",
      from: { path: "^tools/" },
      to: { path: "^(tests|scripts)/" },
    },
  ],
  options: {
    // Only the project's own code, cruised from ".": missing folders are no error.
    includeOnly: "^(server|client|shared|build|scripts|tools|tests)/|^vite\\.config\\.ts$",
    exclude: { path: "^(node_modules|dist|data|coverage|bench-results|\\.git)/" },
    doNotFollow: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
      mainFields: ["module", "main", "types", "typings"],
    },
    cache: false,
    progress: { type: "none" },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
