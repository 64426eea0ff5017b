/**
 * The process's state as the HTTP layer sees it: serving, or shutting down. server/index.ts
 * begins the shutdown on SIGTERM/SIGINT; /readyz (server/routes/health.ts) and the
 * `Connection: close` middleware (server/app.ts) read it.
 */
export interface Lifecycle {
  isShuttingDown(): boolean;
  beginShutdown(): void;
}

export function createLifecycle(): Lifecycle {
  let shuttingDown = false;
  return {
    isShuttingDown: () => shuttingDown,
    beginShutdown: () => {
      shuttingDown = true;
    },
  };
}
