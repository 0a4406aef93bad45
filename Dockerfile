# syntax=docker/dockerfile:1
# The db-autoscaler image: the operator binary, the bundled plugins and CA certificates on a
# minimal Debian 12 runtime, running as the unprivileged user 65532.
#   docker build -t ghcr.io/cozystack/db-autoscaler:$(git describe --tags) .
# tests/chart/dockerfile_test.go checks the structure of this file (stages, user, plugin path).

ARG BUILD_IMAGE=debian:12
ARG RUNTIME_IMAGE=debian:12-slim

# ---------------------------------------------------------------------------------------------
# Build: the project's own CMake build, release flags, no tests or benchmarks. The install rules
# of the "operator" component lay out the binary and every bundled plugin, as the package does.
FROM ${BUILD_IMAGE} AS build
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      build-essential cmake ninja-build pkg-config \
      libboost-dev libboost-filesystem-dev libboost-system-dev rapidjson-dev \
      libcurl4-openssl-dev libssl-dev libcli11-dev libspdlog-dev libyaml-cpp-dev libfmt-dev \
      googletest libgtest-dev libgmock-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
RUN cmake -S /src -B /build -G Ninja \
      -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=/usr \
      -DDHA_BUILD_TESTS=OFF -DDHA_BUILD_BENCH=OFF -DDHA_WERROR=ON \
 && cmake --build /build \
 && DESTDIR=/out cmake --install /build --component operator --strip \
 && test -x /out/usr/bin/db-autoscaler \
 && ls /out/usr/lib/db-autoscaler/plugins/*.so

# ---------------------------------------------------------------------------------------------
# Runtime: only the shared libraries the binary and plugins link, and CA certificates (the
# operator verifies the apiserver and vmselect with them).
FROM ${RUNTIME_IMAGE} AS runtime
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      ca-certificates libcurl4 libssl3 libyaml-cpp0.7 libspdlog1.10 libfmt9 \
      libboost-filesystem1.74.0 libboost-system1.74.0 \
 && rm -rf /var/lib/apt/lists/* \
 && groupadd --gid 65532 nonroot \
 && useradd --uid 65532 --gid 65532 --no-create-home --home-dir /nonexistent \
      --shell /usr/sbin/nologin nonroot
COPY --from=build /out/usr/bin/db-autoscaler /usr/bin/db-autoscaler
COPY --from=build /out/usr/lib/db-autoscaler/plugins/ /usr/lib/db-autoscaler/plugins/
# Fail the image build, not the pod start, if a runtime library is missing.
RUN ! ldd /usr/bin/db-autoscaler /usr/lib/db-autoscaler/plugins/*.so | grep 'not found'

LABEL org.opencontainers.image.title="db-autoscaler" \
      org.opencontainers.image.description="Read-replica autoscaler for managed databases (Kubernetes operator)"

# Numeric, so runAsNonRoot can verify it without reading /etc/passwd.
USER 65532:65532
WORKDIR /
ENTRYPOINT ["/usr/bin/db-autoscaler"]
# The plugin directory defaults to ../lib/db-autoscaler/plugins next to the binary.
CMD ["run"]
