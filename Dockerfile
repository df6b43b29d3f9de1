# syntax=docker/dockerfile:1
# Corkboard server image. Builds with the same scripts `make test` exercises:
#   scripts/install-deps.sh (Debian build packages) and scripts/build.sh (swift build).
#
#   docker build -t corkboard .
#   docker run -p 8080:8080 -v corkboard-data:/data corkboard

# ---- build stage: Swift 6 on Debian bookworm ----
FROM swift:6.3-bookworm AS build
WORKDIR /src
COPY scripts/install-deps.sh scripts/
RUN scripts/install-deps.sh
COPY . .
RUN scripts/build.sh release --static-swift-stdlib --product corkboard \
    && install -D "$(swift build -c release --show-bin-path)/corkboard" /out/corkboard

# ---- runtime stage: bookworm-slim with libwebsockets (and its libuv event-loop plugin), OpenSSL and SQLite runtime libraries ----
FROM debian:bookworm-slim
RUN apt-get update \
    && apt-get install -y --no-install-recommends libwebsockets17 libwebsockets-evlib-uv libuv1 libssl3 libsqlite3-0 libcap2 ca-certificates curl \
    && rm -rf /var/lib/apt/lists/*
RUN useradd --system --create-home --home-dir /home/corkboard --uid 10001 corkboard \
    && mkdir -p /data && chown corkboard /data
COPY --from=build /out/corkboard /usr/local/bin/corkboard
COPY --chown=corkboard web /srv/corkboard/web
USER corkboard
VOLUME ["/data"]
EXPOSE 8080
# Inside a container the server must listen beyond loopback for -p to reach it.
ENV CORKBOARD_HOST=0.0.0.0 CORKBOARD_PORT=8080 CORKBOARD_WEB=/srv/corkboard/web CORKBOARD_DATA=/data
HEALTHCHECK --interval=15s --timeout=3s --start-period=5s --retries=3 \
    CMD curl -fsS http://127.0.0.1:8080/healthz || exit 1
ENTRYPOINT ["corkboard"]
CMD ["serve"]
