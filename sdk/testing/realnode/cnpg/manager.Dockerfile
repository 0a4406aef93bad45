# CloudNativePG's manager (the operator, and the instance manager it copies into each PostgreSQL
# Pod) as its release image lays it out: the binary at /operator/manager_amd64, /manager a link to
# it, the unprivileged user 10001. The context holds manager_amd64, built by scripts/build-go-tool
# from this folder's go.mod.
FROM docker.io/library/debian:12-slim
COPY manager_amd64 /operator/manager_amd64
RUN ln -s /operator/manager_amd64 /manager
USER 10001:10001
ENTRYPOINT ["/manager"]
