# Stand-in for the official postgres:<version>-alpine (deploy/standins/build.sh): Debian's
# PostgreSQL server with an entrypoint that does what the official one does with an empty data
# folder (POSTGRES_USER, POSTGRES_PASSWORD, POSTGRES_DB), then runs the server as `postgres`.
ARG BASE
FROM ${BASE}
# No cluster of Debian's own: the entrypoint makes one in PGDATA.
RUN mkdir -p /etc/postgresql-common \
  && echo 'create_main_cluster = false' > /etc/postgresql-common/createcluster.conf \
  && apt-get update \
  && apt-get install -y --no-install-recommends postgresql \
  && rm -rf /var/lib/apt/lists/*
COPY postgres-entrypoint.sh /usr/local/bin/docker-entrypoint.sh
ENV PGDATA=/var/lib/postgresql/data
VOLUME ["/var/lib/postgresql/data"]
EXPOSE 5432
STOPSIGNAL SIGINT
ENTRYPOINT ["docker-entrypoint.sh"]
CMD ["postgres"]
