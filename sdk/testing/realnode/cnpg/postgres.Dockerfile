# PostgreSQL 15 from Debian, as CloudNativePG runs its instances: the server's programs first on
# PATH (CNPG calls initdb, pg_ctl, postgres, pg_basebackup, pg_controldata, pg_rewind by name) and
# the postgres user with uid/gid 26, the ids CNPG's Pods run as. Debian's group 26 ("tape") moves
# out of the way. No cluster is made at install: CNPG's instance manager runs initdb itself.
FROM docker.io/library/debian:12-slim
RUN groupmod --gid 1026 tape \
 && groupadd --system --gid 26 postgres \
 && useradd --system --uid 26 --gid 26 --home-dir /var/lib/postgresql --shell /bin/bash postgres \
 && mkdir -p /etc/postgresql-common/createcluster.d \
 && echo 'create_main_cluster = false' >/etc/postgresql-common/createcluster.d/no-main-cluster.conf \
 && apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends postgresql-15 \
 && rm -rf /var/lib/apt/lists/* \
 && /usr/lib/postgresql/15/bin/postgres --version
ENV PATH=/usr/lib/postgresql/15/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    LANG=C.UTF-8
USER 26
