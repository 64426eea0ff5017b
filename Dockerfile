# The production image: build once with every dependency, then ship only the built output and
# the production dependencies. Build and run: see docs/deployment.md.
#
# The base image is a build argument so the image can be built from a local copy of Node where
# no registry is reachable (docker build --build-arg NODE_IMAGE=...). The default is the current
# Node.js LTS on Debian bookworm, slim variant (glibc: Node on Alpine's musl is experimental).
ARG NODE_IMAGE=node:24-bookworm-slim

# ---- build: the whole lockfile, then `npm run build` (vite client + SSR bundles into dist/) ----
FROM ${NODE_IMAGE} AS build
WORKDIR /src
# The manifests alone first, so the dependency layer is reused while only sources change.
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build

# ---- deps: production dependencies only, from the same lockfile ----
# A separate stage instead of `npm prune` in the build stage: nothing the build wrote into
# node_modules (caches, generated files) can leak into the runtime image.
FROM ${NODE_IMAGE} AS deps
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

# ---- runtime ----
FROM ${NODE_IMAGE} AS runtime
# DATA_DIR is absolute and a volume: the embedded store (used when DATABASE_URL is unset) is the
# only thing the server writes, so the root filesystem can be mounted read-only.
# MALLOC_ARENA_MAX=1: one malloc arena, as `npm start` runs it (README, Performance; decision 020).
ENV NODE_ENV=production \
    MALLOC_ARENA_MAX=1 \
    HOST=0.0.0.0 \
    PORT=3000 \
    DATA_DIR=/app/data
WORKDIR /app
# The code stays owned by root: the server (uid 1000 below) can read it but never change it.
COPY --from=deps /src/node_modules ./node_modules
COPY --from=build /src/dist ./dist
# The vehicle catalog (year → make → model, VIN tables) the server loads at start-up.
COPY vehicle-data ./vehicle-data
COPY package.json ./
COPY scripts/healthcheck.mjs ./healthcheck.mjs
RUN mkdir -p /app/data && chown 1000:1000 /app/data
VOLUME ["/app/data"]
# uid 1000 is the `node` user of the official Node images; numeric so that orchestrators can
# verify "not root" (Kubernetes runAsNonRoot) without reading /etc/passwd.
USER 1000:1000
# 3000: the site; 3001: the operations console (ADMIN_PORT), to be published on a private address only.
EXPOSE 3000 3001
# Liveness without curl or wget in the image: a few lines of Node against /healthz.
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 CMD ["node", "/app/healthcheck.mjs"]
# The server drains on SIGTERM (readiness fails, in-flight requests finish, exit 0).
STOPSIGNAL SIGTERM
# Node itself is PID 1, so it receives the stop signal (npm would not forward it, and writes to
# its cache, which a read-only filesystem refuses). The flag is the one `npm start` uses.
CMD ["node", "--heap-growing-percent=25", "--max-semi-space-size=8", "dist/server/index.js"]
