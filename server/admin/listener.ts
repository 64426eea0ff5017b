/**
 * The console's own listener: ADMIN_HOST:ADMIN_PORT (default 127.0.0.1:3001), a second HTTP
 * server in the same process as the site, so the public port and the balancer never see it.
 * ADMIN_PORT=off runs none on this replica; 0 takes a free port (logged as admin_console_started).
 */
import type { AddressInfo } from "node:net";
import { createHttpTerminator } from "http-terminator";
import type { Config } from "../config";
import { createAdminApp, type AdminAppDependencies, type CertificateLinkConfig } from "./app";
import { createAppServer } from "../http/app-server";

export interface AdminConsole {
  /** The port it listens on (the real one when ADMIN_PORT=0). */
  port: number;
  /** Stops listening; open requests get until `timeoutMs` to finish. */
  close(): Promise<void>;
}

export type AdminConsoleConfig = Pick<Config, "ADMIN_HOST" | "ADMIN_PORT" | "ADMIN_SESSION_HOURS" | "REPORT_TIME_ZONE" | "NODE_ENV" | "KEEP_ALIVE_TIMEOUT_MS" | "HEADERS_TIMEOUT_MS" | "REQUEST_TIMEOUT_MS" | "SHUTDOWN_TIMEOUT_MS"> & Partial<Pick<Config, "OUTBOUND_ALLOW">> & CertificateLinkConfig;

/** Starts the console, or resolves undefined when ADMIN_PORT is "off". */
export async function startAdminConsole(config: AdminConsoleConfig, deps: Omit<AdminAppDependencies, "config">): Promise<AdminConsole | undefined> {
  if (config.ADMIN_PORT === "off") {
    deps.logger.info({ event: "admin_console_off" }, "operations console off (ADMIN_PORT=off)");
    return undefined;
  }
  const server = createAppServer(createAdminApp({ ...deps, config }));
  server.keepAliveTimeout = config.KEEP_ALIVE_TIMEOUT_MS;
  server.headersTimeout = config.HEADERS_TIMEOUT_MS;
  server.requestTimeout = config.REQUEST_TIMEOUT_MS;
  const port = config.ADMIN_PORT;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, config.ADMIN_HOST, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const actual = (server.address() as AddressInfo).port;
  deps.logger.info({ event: "admin_console_started", host: config.ADMIN_HOST, port: actual }, `operations console on http://${config.ADMIN_HOST}:${actual}`);
  const terminator = createHttpTerminator({ server, gracefulTerminationTimeout: config.SHUTDOWN_TIMEOUT_MS });
  return { port: actual, close: () => terminator.terminate() };
}
