# Stand-in for the official nginx:<version>-alpine (deploy/standins/build.sh): Debian's nginx on a
# Debian release that has 1.27.3 or later (`resolve` on upstream servers), run as the official
# image runs it: in the foreground, as master of workers of the user `nginx`.
ARG BASE
FROM ${BASE}
# A testing release's Release file is valid for a week only; a mirror that lags behind (a snapshot)
# serves one past that, which apt refuses unless told.
RUN apt-get -o Acquire::Check-Valid-Until=false update \
  && apt-get install -y --no-install-recommends nginx \
  && rm -rf /var/lib/apt/lists/* \
  && useradd --system --no-create-home --shell /usr/sbin/nologin nginx \
  && chown -R nginx:nginx /var/lib/nginx \
  && nginx -v
EXPOSE 80
STOPSIGNAL SIGQUIT
CMD ["nginx", "-g", "daemon off;"]
