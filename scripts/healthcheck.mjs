/**
 * The image's HEALTHCHECK: exit 0 when the server in this container answers GET /healthz with
 * 200 within two seconds, else 1. Plain JavaScript with Node's own `fetch`, so the image needs
 * no curl or wget and the check runs without a build step.
 *
 * It asks the loopback address: HOST is 0.0.0.0 in the image, which is not an address to
 * connect to. Only a server bound to one specific address is asked there.
 */
const host = process.env.HOST && !["0.0.0.0", "::", ""].includes(process.env.HOST) ? process.env.HOST : "127.0.0.1";
const port = process.env.PORT || "3000";
const url = `http://${host.includes(":") ? `[${host}]` : host}:${port}/healthz`;

try {
  const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
  process.exit(response.status === 200 ? 0 : 1);
} catch {
  process.exit(1);
}
