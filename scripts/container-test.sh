#!/usr/bin/env bash
# Builds the Dockerfile's image and runs it, on a machine with podman/buildah and no container
# registry: when the FROM image cannot be pulled, a stand-in of it is made locally (Debian bookworm
# minbase by debootstrap + this machine's node and npm, user `node` uid 1000) and imported under the
# same tag. The image is started with buildah (chroot isolation; `podman run` needs setrlimit, which
# these sandboxes refuse) as its own USER with its ENTRYPOINT, a policy directory mounted at
# /policies; the test asks /healthz, one request the policy allows, one it denies, and checks that
# the server process is not root. Exit 0 only if all of that held.
#
#   scripts/container-test.sh            # IMAGE=localhost/portcullis:test by default
# Env: IMAGE, PORT (default: a free one), KEEP_BASE=0 to rebuild the stand-in base.
set -euo pipefail
cd "$(dirname "$0")/.."

IMAGE=${IMAGE:-localhost/portcullis:test}
BASE=$(awk 'toupper($1)=="FROM" {print $2; exit}' Dockerfile)
log() { printf '[container-test %s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }
die() { log "FAIL: $*"; exit 1; }

command -v podman >/dev/null || die "podman is not installed (apt-get install podman buildah debootstrap)"
command -v buildah >/dev/null || die "buildah is not installed (apt-get install podman buildah debootstrap)"

WORK=$(mktemp -d /tmp/portcullis-container.XXXXXX)
CTR=''
SERVER_PID=''
cleanup() {
  if [ -n "$SERVER_PID" ]; then kill "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true; fi
  if [ -n "$CTR" ]; then buildah rm "$CTR" >/dev/null 2>&1 || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT

# --- 1. the base image: pulled, or a local stand-in under the same tag -------------------------
standin_base() {
  command -v debootstrap >/dev/null || die "debootstrap is not installed (needed to make a stand-in of $BASE)"
  local rootfs="$WORK/rootfs" node npmdir
  log "making a stand-in of $BASE: debootstrap bookworm (minbase)"
  # the machine's own Debian mirror, so the stand-in comes from where its packages come from
  local mirror
  mirror=$(grep -rhoE '^(URIs:|deb) +https?://[^ ]+/debian/?( |$)' /etc/apt/sources.list /etc/apt/sources.list.d/ 2>/dev/null | awk '{print $2}' | head -1 || true)
  debootstrap --variant=minbase bookworm "$rootfs" "${mirror:-http://deb.debian.org/debian}" >"$WORK/debootstrap.log" 2>&1 \
    || { tail -20 "$WORK/debootstrap.log" >&2; die "debootstrap failed"; }
  node=$(readlink -f "$(command -v node)")
  npmdir=$(npm root -g 2>/dev/null)/npm
  [ -f "$npmdir/bin/npm-cli.js" ] || die "npm not found at $npmdir"
  log "adding node $("$node" --version) ($node) and npm $(node "$npmdir/bin/npm-cli.js" --version 2>/dev/null)"
  install -D -m 0755 "$node" "$rootfs/usr/local/bin/node"
  mkdir -p "$rootfs/usr/local/lib/node_modules"
  cp -a "$npmdir" "$rootfs/usr/local/lib/node_modules/npm"
  ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
  ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"
  # the shared libraries node links against that minbase lacks (normally none: libstdc++ comes with apt)
  local lib
  for lib in $(ldd "$node" | awk '$3 ~ /^\// {print $3} $1 ~ /^\// {print $1}'); do
    [ -e "$rootfs$lib" ] || install -D "$(readlink -f "$lib")" "$rootfs$lib"
  done
  # the official image's unprivileged user
  chroot "$rootfs" groupadd --gid 1000 node
  chroot "$rootfs" useradd --uid 1000 --gid node --shell /bin/bash --create-home node
  env -u NODE_EXTRA_CA_CERTS chroot "$rootfs" /usr/local/bin/node -e 'process.exit(0)' || die "node does not run in the stand-in root"
  rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
  tar -C "$rootfs" -c . | podman import \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'ENV NODE_VERSION='"$("$node" --version | tr -d v)" \
    --change 'CMD ["node"]' - "$BASE" >/dev/null
  log "imported the stand-in as $BASE"
}

if [ "${KEEP_BASE:-1}" = 0 ]; then podman rmi -f "$BASE" >/dev/null 2>&1 || true; fi
if podman image exists "$BASE"; then
  log "base $BASE is present"
elif timeout 60 podman pull -q "$BASE" >/dev/null 2>&1; then
  log "pulled $BASE"
else
  log "cannot pull $BASE (no registry reachable)"
  standin_base
fi

# --- 2. the image, as the README builds it ------------------------------------------------------
# npm goes through this machine's CA bundle (a TLS-intercepting proxy re-signs the registry): a
# build secret, mounted only in the RUN steps that call npm, never in a layer
CAFILE=$(npm config get cafile 2>/dev/null | grep -v '^null$' || true)
[ -n "$CAFILE" ] && [ -s "$CAFILE" ] || CAFILE=/etc/ssl/certs/ca-certificates.crt
log "podman build --isolation=chroot -t $IMAGE (CA bundle $CAFILE as secret npmca)"
t0=$(date +%s)
podman build --isolation=chroot --secret "id=npmca,src=$CAFILE" -t "$IMAGE" . >"$WORK/build.log" 2>&1 \
  || { tail -40 "$WORK/build.log" >&2; die "podman build failed"; }
SIZE=$(podman image inspect --format '{{.Size}}' "$IMAGE")
log "built in $(( $(date +%s) - t0 ))s; image size $SIZE bytes ($(( SIZE / 1000000 )) MB)"

# the CA bundle must not be in the runtime image
CTR=$(buildah from --pull-never "$IMAGE")
# the image declares /policies a VOLUME: left in, buildah mounts an empty anonymous volume there too,
# and which of the two mounts ends on top varies from run to run; the working container drops the
# declaration (the image keeps it), so the bind mount below is the only one
buildah config --volume /policies- "$CTR"
MNT=$(buildah mount "$CTR")
[ ! -e "$MNT/run/secrets/npmca" ] || die "the build secret was left in the image"
[ ! -d "$MNT/opt/portcullis/src" ] || die "the runtime image holds the TypeScript sources"
[ ! -d "$MNT/opt/portcullis/node_modules/typescript" ] || die "the runtime image holds dev dependencies"
buildah umount "$CTR" >/dev/null

# --- 3. run it: policies at /policies, the entrypoint as the image's USER ----------------------
POL="$WORK/policies"
mkdir -p "$POL"
cat >"$POL/abac.jsonl" <<'POLICY'
{"apiVersion": "abac.authorization.platform.io/v1beta1", "kind": "Policy", "spec": {"user": "*", "readonly": true, "nonResourcePath": "*"}}
{"apiVersion": "abac.authorization.platform.io/v1beta1", "kind": "Policy", "spec": {"group": "system:unauthenticated", "readonly": true, "nonResourcePath": "*"}}
{"apiVersion": "abac.authorization.platform.io/v1beta1", "kind": "Policy", "spec": {"user": "alice", "namespace": "*", "resource": "*", "apiGroup": "*"}}
POLICY
ALICE=alice-token-$RANDOM$RANDOM
BOB=bob-token-$RANDOM$RANDOM
printf '%s,alice,1\n%s,bob,2\n' "$ALICE" "$BOB" >"$POL/tokens.csv"
chmod 0755 "$POL"; chmod 0644 "$POL"/*

PORT=${PORT:-$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')}
USER_OF_IMAGE=$(podman image inspect --format '{{.Config.User}}' "$IMAGE")
[ -n "$USER_OF_IMAGE" ] || die "the image sets no USER"
mapfile -t ENTRY < <(podman image inspect --format '{{range .Config.Entrypoint}}{{println .}}{{end}}' "$IMAGE" | sed '/^$/d')
WORKDIR=$(podman image inspect --format '{{.Config.WorkingDir}}' "$IMAGE")
log "buildah run --isolation=chroot --user $USER_OF_IMAGE -v $POL:/policies:ro $IMAGE ${ENTRY[*]} serve --secure-port=$PORT ..."
buildah run --isolation=chroot --user "$USER_OF_IMAGE" --workingdir "$WORKDIR" -v "$POL:/policies:ro" "$CTR" -- \
  "${ENTRY[@]}" serve --secure-port="$PORT" --bind-address=127.0.0.1 \
  --authorization-mode=ABAC --authorization-policy-file=/policies/abac.jsonl --token-auth-file=/policies/tokens.csv \
  >"$WORK/server.log" 2>&1 &
SERVER_PID=$!

URL="https://127.0.0.1:$PORT"
code() { curl -sk -o /dev/null -w '%{http_code}' "$@"; }
for _ in $(seq 1 100); do
  [ "$(code "$URL/healthz")" = 200 ] && break
  kill -0 "$SERVER_PID" 2>/dev/null || { cat "$WORK/server.log" >&2; ls -la "$POL" >&2; die "the server exited"; }
  sleep 0.3
done
[ "$(curl -sk "$URL/healthz")" = ok ] || { cat "$WORK/server.log" >&2; ls -la "$POL" >&2; die "/healthz did not answer ok"; }
log "/healthz: ok"
got=$(code -H "Authorization: Bearer $ALICE" "$URL/api/v1/namespaces/default/configmaps")
[ "$got" = 200 ] || die "alice's list of configmaps: HTTP $got, want 200"
log "authorized request (alice lists configmaps): 200"
got=$(code -H "Authorization: Bearer $BOB" "$URL/api/v1/namespaces/default/configmaps")
[ "$got" = 403 ] || die "bob's list of configmaps: HTTP $got, want 403"
log "denied request (bob lists configmaps): 403"

# the process that listens on the port, and its uid
LISTENER=$(ss -Hltnp "sport = :$PORT" | grep -oE 'pid=[0-9]+' | head -1 | cut -d= -f2)
[ -n "$LISTENER" ] || die "no process listens on $PORT"
UID_OF=$(awk '/^Uid:/ {print $2}' "/proc/$LISTENER/status")
[ "$UID_OF" != 0 ] || die "the server runs as root"
log "the server (pid $LISTENER) runs as uid $UID_OF ($USER_OF_IMAGE), not root"
log "PASS"
