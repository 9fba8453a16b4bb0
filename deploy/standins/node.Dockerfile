# Stand-in for the official node:<major>-bookworm-slim (deploy/standins/build.sh): Debian bookworm
# (minbase) with Node.js and npm from the npm registry (the `node` and `npm` packages) in
# /usr/local, as the official image has them, its `node` user (uid 1000) and, like it, no Python
# and no compiler. The build context is the folder build.sh prepares.
ARG BASE
FROM ${BASE}
COPY node/ /usr/local/
RUN ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \
  && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx \
  && groupadd --gid 1000 node \
  && useradd --uid 1000 --gid node --shell /bin/bash --create-home node \
  && node --version && npm --version
# The certificate authorities of the machine that built it, which npm needs where the registry is
# reached through an intercepting proxy; Node.js adds them to its own.
COPY host-ca.crt /usr/local/share/ca-certificates/host-ca.crt
ENV NODE_EXTRA_CA_CERTS=/usr/local/share/ca-certificates/host-ca.crt
CMD ["node"]
