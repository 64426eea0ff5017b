/**
 * A plain HTTP GET for the benchmark. node:http rather than fetch(): fetch sends
 * `Accept-Encoding: gzip` and decodes the answer, so its bytes are not the bytes autocannon gets.
 * This sends no Accept-Encoding (unless the caller adds one), follows no redirects, and returns
 * the raw body: with an Accept-Encoding, the bytes as they travelled, still encoded.
 */
import http from "node:http";

/** A current desktop Chrome: the server streams for browsers and waits for everything for bots. */
export const BROWSER_USER_AGENT =
  "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36";

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

export function httpGet(url: string, timeoutMs = 10_000, headers: Record<string, string> = {}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { headers: { "User-Agent": BROWSER_USER_AGENT, ...headers }, agent: false }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.once("error", reject);
      response.once("end", () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }),
      );
    });
    request.setTimeout(timeoutMs, () => request.destroy(new Error(`GET ${url} timed out after ${timeoutMs} ms`)));
    request.once("error", reject);
  });
}
