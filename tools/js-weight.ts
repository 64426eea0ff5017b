/**
 * How much JavaScript a page costs, measured from the outside: the page's HTML names the entry
 * scripts (<script src>) and preloads (<link rel="modulepreload">); each fetched module is scanned
 * for static imports (loaded before the entry runs) and literal dynamic import()s (loaded later,
 * on demand). Every file is fetched from the running server, as it is and compressed.
 *
 * The scan is textual (regular expressions over minified bundles), which is enough for what
 * Vite/Rolldown emit: static imports are `import{..}from"./x.js"` / `import"./x.js"`, dynamic ones
 * `import("./x.js")` with a literal. A dynamic import() of a computed value cannot be followed;
 * those are counted and reported instead of silently ignored.
 *
 * A file's gzip weight is what the server sends a browser that accepts gzip (the build's Zopfli
 * file, build/precompress.ts, or the compression middleware's output); a file the server would
 * send uncompressed is gzipped here at level 9 and said so in `notes`. For context each file also
 * has its brotli weight as sent to a phone (`gzip, deflate, br`) and zlib level 9 of its bytes.
 */
import { gunzipSync, gzipSync, constants as zlibConstants } from "node:zlib";
import { httpGet } from "./http-get";

export interface JsFile {
  path: string;
  rawBytes: number;
  /** As the server sends it to a browser accepting only gzip. */
  gzipBytes: number;
  /** As the server sends it to a phone (`gzip, deflate, br`): brotli when the server has it. */
  phoneBytes: number;
  /** zlib level 9 of the file's bytes, for comparison with on-the-fly compression. */
  gzip9Bytes: number;
  /** How the file was reached: "html <script>", "html modulepreload", "static import of X", "import() in X". */
  via: string;
}

export interface JsGroup {
  files: JsFile[];
  rawBytes: number;
  gzipBytes: number;
  phoneBytes: number;
  gzip9Bytes: number;
}

export interface JsWeight {
  /** Entry scripts, their modulepreloads, and everything they statically import. */
  atLoad: JsGroup;
  /** Reached only through import(): fetched when the code asks for it, not at page load. */
  lazy: JsGroup;
  /** Inline <script> elements in the HTML (already part of the document's bytes). */
  inlineScripts: { count: number; rawBytes: number };
  /** Stylesheets the HTML links (not JavaScript; for context). */
  css: JsGroup;
  /** import() calls whose argument is not a string literal, per file. */
  unfollowableDynamicImports: Array<{ path: string; count: number }>;
  /** Script/preload URLs outside /assets/ or on another origin: listed, not fetched. */
  skipped: string[];
  notes: string[];
}

const GZIP_LEVEL = 9;

function gzipSize(body: Buffer): number {
  return gzipSync(body, { level: GZIP_LEVEL, memLevel: 9, strategy: zlibConstants.Z_DEFAULT_STRATEGY }).length;
}

function attribute(tag: string, name: string): string | undefined {
  const match = new RegExp(`\\s${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s>]+))`, "i").exec(tag);
  return match ? (match[1] ?? match[2] ?? match[3]) : undefined;
}

interface HtmlRefs {
  scripts: string[];
  modulePreloads: string[];
  stylesheets: string[];
  inline: { count: number; rawBytes: number };
}

/** `import("x")` with a string literal (group 2 is the specifier); a global regexp for matchAll. */
const LITERAL_DYNAMIC_IMPORT = /(?<![\w$.])import\(\s*(["'`])([^"'`\n$]+?)\1\s*\)/g;

export function scanHtml(html: string): HtmlRefs {
  const scripts: string[] = [];
  const inline = { count: 0, rawBytes: 0 };
  for (const match of html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script\s*>/gi)) {
    const attrs = match[1] ?? "";
    const src = attribute(` ${attrs}`, "src");
    if (src) scripts.push(src);
    else if ((match[2] ?? "").trim().length > 0) {
      // JSON data blocks are not code; everything else inline is.
      const type = attribute(` ${attrs}`, "type") ?? "";
      if (!/json/i.test(type)) {
        inline.count += 1;
        inline.rawBytes += Buffer.byteLength(match[2] ?? "");
        // An inline loader that imports the entry once the page has painted
        // (build/hydrate-after-paint.ts): that entry is fetched on every page view all the same,
        // so it counts as an entry script, JavaScript of the page's load.
        for (const loaded of (match[2] ?? "").matchAll(LITERAL_DYNAMIC_IMPORT)) if (loaded[2]) scripts.push(loaded[2]);
      }
    }
  }
  const modulePreloads: string[] = [];
  const stylesheets: string[] = [];
  for (const match of html.matchAll(/<link\b[^>]*>/gi)) {
    const tag = match[0];
    const rel = (attribute(tag, "rel") ?? "").toLowerCase().split(/\s+/);
    const href = attribute(tag, "href");
    if (!href) continue;
    if (rel.includes("modulepreload")) modulePreloads.push(href);
    else if (rel.includes("stylesheet")) stylesheets.push(href);
  }
  return { scripts, modulePreloads, stylesheets, inline };
}

interface ModuleRefs {
  staticImports: string[];
  dynamicImports: string[];
  unfollowable: number;
}

/** Specifiers in one bundled ES module. */
export function scanModule(code: string): ModuleRefs {
  const staticImports = new Set<string>();
  // import"x"; import x from"x"; import{a as b}from"x"; import*as n from"x"; export{a}from"x"; export*from"x"
  // Only specifiers that look like module files ("./x.js", "/assets/x.js", "https://…/x.mjs"), so
  // prose inside minified strings ("did you import `RouterProvider` from …") is not taken for one.
  const staticPattern =
    /(?:^|[;\n}\s])(?:import|export)\s*(?:[\w$]+\s*,?\s*)?(?:\{[^}]*\}|\*\s*(?:as\s+[\w$]+)?)?\s*(?:from\s*)?(["'`])((?:\.{1,2}\/|\/|https?:\/\/)[^"'`\n]*?\.m?js(?:\?[^"'`\n]*)?)\1/g;
  for (const match of code.matchAll(staticPattern)) {
    if (match[2]) staticImports.add(match[2]);
  }
  const dynamicImports = new Set<string>();
  let literalCalls = 0;
  for (const match of code.matchAll(LITERAL_DYNAMIC_IMPORT)) {
    literalCalls += 1;
    if (match[2]) dynamicImports.add(match[2]);
  }
  // Vite's preload helper lists a dynamic import's dependencies as "assets/x.js" (base-relative).
  for (const match of code.matchAll(/__vite__mapDeps[\s\S]{0,200}?\[([^\]]*)\]/g)) {
    for (const dep of (match[1] ?? "").matchAll(/["'`]([^"'`]+\.m?js)["'`]/g)) {
      if (dep[1]) dynamicImports.add(dep[1].startsWith("assets/") ? `/${dep[1]}` : dep[1]);
    }
  }
  const allCalls = [...code.matchAll(/(?<![\w$.])import\(/g)].length;
  return { staticImports: [...staticImports], dynamicImports: [...dynamicImports], unfollowable: Math.max(0, allCalls - literalCalls) };
}

interface Fetched {
  path: string;
  body: Buffer;
  refs: ModuleRefs;
  gzipBytes: number;
  phoneBytes: number;
  gzip9Bytes: number;
}

const PHONE_ACCEPT_ENCODING = "gzip, deflate, br";

export async function measureJsWeight(origin: string, pagePath: string, html: string): Promise<JsWeight> {
  const refs = scanHtml(html);
  const pageUrl = new URL(pagePath, origin);
  const skipped: string[] = [];
  const notes: string[] = [];
  const cache = new Map<string, Promise<Fetched | undefined>>();

  /** Same-origin .js under /assets/ only; anything else is listed as skipped. */
  const resolve = (specifier: string, base: URL): string | undefined => {
    let url: URL;
    try {
      url = new URL(specifier, base);
    } catch {
      skipped.push(specifier);
      return undefined;
    }
    if (url.origin !== pageUrl.origin || !url.pathname.startsWith("/assets/")) {
      skipped.push(url.href);
      return undefined;
    }
    return url.pathname;
  };

  const load = (assetPath: string): Promise<Fetched | undefined> => {
    let pending = cache.get(assetPath);
    if (!pending) {
      const url = new URL(assetPath, origin).href;
      // Two requests, a gzip-only browser's and a phone's; the file's own bytes are the first inflated.
      pending = Promise.all([httpGet(url, undefined, { "Accept-Encoding": "gzip" }), httpGet(url, undefined, { "Accept-Encoding": PHONE_ACCEPT_ENCODING })]).then(([gzip, phone]) => {
        if (gzip.status !== 200) {
          notes.push(`${assetPath} answered ${gzip.status}; not counted`);
          return undefined;
        }
        const gzipped = gzip.headers["content-encoding"] === "gzip";
        const body = gzipped ? gunzipSync(gzip.body) : gzip.body;
        const gzip9Bytes = gzipSize(body);
        if (!gzipped) notes.push(`${assetPath} is sent uncompressed to a gzip browser; counted as gzip level ${GZIP_LEVEL}`);
        const isJs = /\.m?js$/.test(assetPath) || /javascript/.test(String(gzip.headers["content-type"] ?? ""));
        return {
          path: assetPath,
          body,
          refs: isJs ? scanModule(body.toString("utf8")) : { staticImports: [], dynamicImports: [], unfollowable: 0 },
          gzipBytes: gzipped ? gzip.body.length : gzip9Bytes,
          phoneBytes: phone.body.length,
          gzip9Bytes,
        };
      });
      cache.set(assetPath, pending);
    }
    return pending;
  };

  /** Breadth-first over static imports from the given roots; returns path -> how it was reached. */
  const closeOverStatic = async (roots: Map<string, string>, exclude: Set<string>): Promise<Map<string, string>> => {
    const reached = new Map<string, string>();
    const queue = [...roots.entries()].filter(([path]) => !exclude.has(path));
    while (queue.length > 0) {
      const [path, via] = queue.shift()!;
      if (reached.has(path) || exclude.has(path)) continue;
      const file = await load(path);
      if (!file) continue;
      reached.set(path, via);
      for (const specifier of file.refs.staticImports) {
        const target = resolve(specifier, new URL(path, origin));
        if (target && !reached.has(target)) queue.push([target, `static import of ${path}`]);
      }
    }
    return reached;
  };

  const roots = new Map<string, string>();
  for (const src of refs.scripts) {
    const target = resolve(src, pageUrl);
    if (target && !roots.has(target)) roots.set(target, "html <script src>");
  }
  for (const href of refs.modulePreloads) {
    const target = resolve(href, pageUrl);
    if (target && !roots.has(target)) roots.set(target, "html modulepreload");
  }
  const atLoad = await closeOverStatic(roots, new Set());

  // Lazy: follow import() from every module reached so far, and from the lazy modules themselves.
  const lazy = new Map<string, string>();
  const visitedForDynamic = new Set<string>();
  let frontier = [...atLoad.keys()];
  while (frontier.length > 0) {
    const dynamicRoots = new Map<string, string>();
    for (const path of frontier) {
      visitedForDynamic.add(path);
      const file = await load(path);
      for (const specifier of file?.refs.dynamicImports ?? []) {
        const target = resolve(specifier, new URL(path, origin));
        if (target && !atLoad.has(target) && !lazy.has(target) && !dynamicRoots.has(target)) {
          dynamicRoots.set(target, `import() in ${path}`);
        }
      }
    }
    const reached = await closeOverStatic(dynamicRoots, new Set([...atLoad.keys(), ...lazy.keys()]));
    for (const [path, via] of reached) lazy.set(path, via);
    frontier = [...reached.keys()].filter((path) => !visitedForDynamic.has(path));
  }

  const describe = async (paths: Map<string, string>): Promise<JsGroup> => {
    const files: JsFile[] = [];
    for (const [path, via] of paths) {
      const file = await load(path);
      if (!file) continue;
      files.push({ path, via, rawBytes: file.body.length, gzipBytes: file.gzipBytes, phoneBytes: file.phoneBytes, gzip9Bytes: file.gzip9Bytes });
    }
    const total = (key: "rawBytes" | "gzipBytes" | "phoneBytes" | "gzip9Bytes") => files.reduce((sum, file) => sum + file[key], 0);
    return { files, rawBytes: total("rawBytes"), gzipBytes: total("gzipBytes"), phoneBytes: total("phoneBytes"), gzip9Bytes: total("gzip9Bytes") };
  };

  const cssPaths = new Map<string, string>();
  for (const href of refs.stylesheets) {
    const url = new URL(href, pageUrl);
    if (url.origin === pageUrl.origin) cssPaths.set(url.pathname, "html stylesheet");
  }

  const unfollowableDynamicImports: Array<{ path: string; count: number }> = [];
  for (const path of [...atLoad.keys(), ...lazy.keys()]) {
    const file = await load(path);
    if (file && file.refs.unfollowable > 0) unfollowableDynamicImports.push({ path, count: file.refs.unfollowable });
  }

  return {
    atLoad: await describe(atLoad),
    lazy: await describe(lazy),
    inlineScripts: refs.inline,
    css: await describe(cssPaths),
    unfollowableDynamicImports,
    skipped: [...new Set(skipped)],
    notes,
  };
}

export const JS_GZIP_LEVEL = GZIP_LEVEL;
