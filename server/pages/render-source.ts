/**
 * Where the HTML template and the React server entry come from. This is the one dev/prod
 * split (docs/architecture.md, convention 1): production reads the built template once and imports the built
 * entry at boot; development (server/pages/dev.ts) asks Vite for both on every request.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { EntryServer } from "../../shared/render-contract";
import { APP_MARKER } from "./template";

export interface RenderSource {
  template(url: string): Promise<string>;
  entry(): Promise<EntryServer>;
  /** Development only: rewrite a stack trace to point at source files. */
  fixStacktrace?(error: Error): void;
}

export interface ProductionBuild {
  source: RenderSource;
  /** dist/client: hashed assets under assets/, plus the copied public/ files. */
  clientDir: string;
}

/** Loads the production build; throws with a clear message when `npm run build` has not run. */
export async function loadProductionBuild(distDir: string): Promise<ProductionBuild> {
  const clientDir = path.join(distDir, "client");
  const templatePath = path.join(clientDir, "index.html");
  const entryPath = path.join(distDir, "server", "entry-server.js");
  let template: string;
  let entry: EntryServer;
  try {
    template = await readFile(templatePath, "utf8");
    entry = (await import(pathToFileURL(entryPath).href)) as EntryServer;
  } catch (error) {
    throw new Error(`No production build in ${distDir} (run \`npm run build\` first)`, { cause: error });
  }
  if (!template.includes(APP_MARKER) || typeof entry.prepare !== "function") {
    throw new Error(`The build in ${distDir} is incomplete: rebuild with \`npm run build\``);
  }
  return {
    clientDir,
    source: { template: async () => template, entry: async () => entry },
  };
}
