# The Topoplay server and its SPA in one image (docs/deploy.md). Two stages: `build` installs every
# package and runs `npm run build`; the final stage holds only the production packages and what
# the build produced, owned by root and run as an unprivileged user.
#
# Both stages are the official slim Node image, which has no Python and no compiler, and need
# none: no package compiles anything on install. better-sqlite3 ships its binaries, and
# package.json's allowScripts denies its implicit `node-gyp rebuild`, which would only look for
# them and fail on the missing Python (`npm run check:image` builds this file on such a base).

ARG NODE_VERSION=24

FROM node:${NODE_VERSION}-bookworm-slim AS build
WORKDIR /app
# The lockfile alone first, so that a change to the sources reuses the installed packages.
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund --no-update-notifier
COPY . .
RUN npm run build

FROM node:${NODE_VERSION}-bookworm-slim
# xorriso wraps an uploaded file that is not an ISO image into one (XORRISO); without it the
# server accepts ISO images only.
# apt's lists and caches go in the same layer (about 80 MB where the base does not clean them).
RUN apt-get update \
  && apt-get install -y --no-install-recommends xorriso \
  && apt-get clean \
  && rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production \
  TOPOPLAY_DATA=/var/lib/topoplay
WORKDIR /app
COPY package.json package-lock.json ./
# No production package needs an install script (tests/deploy checks it). npm's cache goes, and
# so does what better-sqlite3 holds only for building from source (SQLite's sources) and for
# other systems (its binaries for macOS, Windows and musl): 20 MB.
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund --no-update-notifier \
  && rm -rf "$(npm config get cache)" \
  && cd node_modules/better-sqlite3 \
  && rm -rf deps src binding.gyp \
  && find prebuilds -type f ! -name 'linux-*' -delete
COPY --from=build /app/dist ./dist
COPY --from=build /app/dist-server ./dist-server
# The qemu driver's switch runs as a process of its own from these files, switchd.mjs and the
# modules it imports (the image has no QEMU; HYPERVISOR=qemu needs a host, or an image, with
# qemu-system-x86 and qemu-utils).
COPY server/hypervisor/qemu/switchd.mjs ./server/hypervisor/qemu/switchd.mjs
COPY server/hypervisor/qemu/switchd ./server/hypervisor/qemu/switchd
# The data folder is the only place the server writes; everything else stays read-only to it.
# uid 1000 is the image's `node` user, given by number so that Kubernetes' runAsNonRoot can check it.
RUN mkdir -p /var/lib/topoplay && chown 1000:1000 /var/lib/topoplay
VOLUME ["/var/lib/topoplay"]
ARG COMMIT=dev
ENV COMMIT=${COMMIT}
USER 1000:1000
EXPOSE 5080
# Healthy once the server answers ready (database, migrations, Redis, hypervisor driver). The
# slim image has no curl; Node's own fetch does the request. Failures in the first 150 s do not
# count: a start may take that long (plugins have 2 minutes; replicas migrate one at a time), and
# Compose gives up on a stack whose replica turned unhealthy while starting. A probe starts a Node
# process: on two cores at a load average of 20 that and the answer took 2.7 to 6.2 s, so a probe
# has 15 s before it counts as failed.
HEALTHCHECK --interval=10s --timeout=15s --start-period=150s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 5080) + '/api/health/ready').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# Node is PID 1 and handles SIGTERM itself: it stops accepting, lets requests finish and exits.
CMD ["node", "dist-server/main.js"]
