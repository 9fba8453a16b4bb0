# Stand-in for the official redis:<version>-alpine (deploy/standins/build.sh): Debian's Redis
# server, run from /data as `redis`, answering on every interface as the official image does.
ARG BASE
FROM ${BASE}
RUN apt-get update \
  && apt-get install -y --no-install-recommends redis-server \
  && rm -rf /var/lib/apt/lists/* \
  && mkdir /data \
  && chown redis:redis /data
COPY redis-entrypoint.sh /usr/local/bin/docker-entrypoint.sh
VOLUME ["/data"]
WORKDIR /data
EXPOSE 6379
ENTRYPOINT ["docker-entrypoint.sh"]
CMD ["redis-server"]
