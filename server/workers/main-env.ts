/** The environment variable that carries the server's own secret to the background worker (server/workers/main.ts) when CSRF_SECRET is not set, so certificate links are signed alike. */
export const SECRET_ENV = "BACKGROUND_CSRF_SECRET_HEX";
