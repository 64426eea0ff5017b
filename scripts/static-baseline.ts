/**
 * The benchmark's baseline: bare Express 5 serving one directory with express.static (no
 * logging, no helmet, no compression), on 127.0.0.1 at a port the OS picks. The benchmark runs it
 * in a child process (`node --import tsx scripts/static-baseline.ts <dir>`) so it gets its own
 * event loop like the real server, and reads `{"event":"baseline_started","port":N}` from stdout.
 *
 * It exits on SIGTERM/SIGINT, and on its own when its parent goes away (stdin closes).
 */
import http from "node:http";
import path from "node:path";
import express from "express";

const directory = process.argv[2];
if (!directory) {
  process.stderr.write("usage: static-baseline.ts <directory containing index.html>\n");
  process.exit(2);
}

const app = express();
app.disable("x-powered-by");
app.use(express.static(path.resolve(directory)));

const server = http.createServer(app);
// Same keep-alive as the production server's default, so neither side closes sockets mid-run.
server.keepAliveTimeout = 65_000;
server.headersTimeout = 66_000;

server.listen(0, "127.0.0.1", () => {
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  process.stdout.write(`${JSON.stringify({ event: "baseline_started", port })}\n`);
});

const stop = () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
  setTimeout(() => process.exit(0), 2_000).unref();
};
process.once("SIGTERM", stop);
process.once("SIGINT", stop);
// The parent holds our stdin open; when it dies without killing us, stdin ends and we go too.
process.stdin.resume();
process.stdin.once("end", stop);
process.stdin.once("close", stop);
