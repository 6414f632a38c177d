# Multi-stage build: compile in the Rust image, run in a slim Debian image that
# holds only the binary (with the model built in) and ONNX Runtime beside it.
FROM rust:1-bookworm AS build
RUN apt-get update && apt-get install -y --no-install-recommends python3 python3-pip \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
# build.rs fetches the pinned onnxruntime wheel with pip and checks its sha256.
RUN cargo build --release --locked \
    && cp target/release/boardscan /boardscan \
    && cp target/onnxruntime/*/libonnxruntime.so.* /

FROM debian:bookworm-slim
# ffmpeg decodes uploaded videos of games (POST /api/v1/game/recording).
RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates libstdc++6 ffmpeg \
    && rm -rf /var/lib/apt/lists/* \
    && groupadd --system --gid 10001 boardscan \
    && useradd --system --uid 10001 --gid 10001 --no-create-home --shell /usr/sbin/nologin boardscan \
    && mkdir -p /var/lib/boardscan && chown 10001:10001 /var/lib/boardscan
# The binary looks for libonnxruntime next to itself.
COPY --from=build /boardscan /libonnxruntime.so.* /usr/local/bin/
# Numeric, so that Kubernetes' runAsNonRoot can check it (deploy/base sets the
# same uid and gid; tests/integration/deploy.rs compares them).
USER 10001:10001
EXPOSE 8080
ENV BOARDSCAN_BIND=0.0.0.0:8080
# The scan library (docs/library.md): a SQLite file on this volume, unless
# BOARDSCAN_LIBRARY names a postgres:// URL or BOARDSCAN_NO_LIBRARY=true.
ENV BOARDSCAN_LIBRARY=/var/lib/boardscan/library.sqlite3
# Bound to every address: set BOARDSCAN_ACCESS_TOKEN (docker run -e) so that only
# those who know it may read, correct and delete the kept scans; without it the
# service logs a warning at startup.
VOLUME /var/lib/boardscan
ENTRYPOINT ["/usr/local/bin/boardscan"]
CMD ["serve"]
