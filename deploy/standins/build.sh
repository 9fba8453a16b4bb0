#!/usr/bin/env bash
# Stand-ins for the base images that the Dockerfile and compose.yaml name, for a Docker engine that
# reaches no image registry (docs/deploy.md). Each image that is neither present nor pullable is
# built under the very name the files use, from Debian's packages: a root file system made with
# debootstrap and imported, then Node.js from the npm registry (node:*-bookworm-slim), or Debian's
# nginx, PostgreSQL or Redis. A stand-in carries the label org.topoplay.standin, saying what it
# is; a real image of the same name is never replaced. Everything is cached: the imported root
# file systems as images and tarballs (TOPOPLAY_STANDIN_CACHE), the stand-ins as images, rebuilt
# only when their recipe changes. Needs root (debootstrap), Debian's mirror and the npm registry.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
here="$root/deploy/standins"
cache="${TOPOPLAY_STANDIN_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/topoplay/standins}"
mirror="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
mkdir -p "$cache"

# shellcheck source=../../scripts/node24.sh
source "$root/scripts/node24.sh"

say() { printf 'standins: %s\n' "$*"; }
label() { docker image inspect --format '{{ index .Config.Labels "org.topoplay.standin" }}' "$1" 2>/dev/null; }

# debootstrap from Debian's packages. Installed before the root file systems are made side by side
# below: two apt-get runs at once fail on apt's lock.
need_debootstrap() {
  command -v debootstrap >/dev/null || {
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap
  }
}

# A Debian release's minimal root file system as the image topoplay-standin/debian:<suite>.
debian_base() {
  local suite="$1" image="topoplay-standin/debian:$1" tarball="$cache/debian-$1.tar"
  docker image inspect "$image" >/dev/null 2>&1 && return 0
  if [ ! -s "$tarball" ]; then
    need_debootstrap
    local dir
    dir="$(mktemp -d "$cache/rootfs-$suite.XXXXXX")"
    say "debootstrap $suite from $mirror (a few minutes, once)"
    # Releases newer than this debootstrap knows are made like sid.
    local script="/usr/share/debootstrap/scripts/$suite"
    [ -e "$script" ] || script=/usr/share/debootstrap/scripts/sid
    debootstrap --variant=minbase "$suite" "$dir" "$mirror" "$script" >"$cache/debootstrap-$suite.log"
    rm -rf "$dir"/var/lib/apt/lists/* "$dir"/var/cache/apt/*.bin "$dir"/var/cache/apt/archives/*.deb
    tar -C "$dir" -cf "$tarball.part" . && mv "$tarball.part" "$tarball"
    rm -rf "$dir"
  fi
  docker import --change 'CMD ["bash"]' "$tarball" "$image" >/dev/null
}

# Builds stand-in $2 from $here/$1.Dockerfile on Debian $3 with context $4, described as $5 and
# the version command $6 prints, unless $2 is a real image, pulls, or is a stand-in from the same
# recipe already.
standin() {
  local kind="$1" name="$2" suite="$3" context="$4" what="$5" version="$6"
  local recipe
  recipe="$(cat "$here/$kind.Dockerfile" $(compgen -G "$here/$kind-*.sh") | sha256sum | cut -c1-12)"
  if docker image inspect "$name" >/dev/null 2>&1; then
    local current
    current="$(label "$name")"
    if [ -z "$current" ]; then say "$name: present (not a stand-in)"; return 0; fi
    if [[ "$current" == *"recipe $recipe"* ]]; then
      say "$name: a stand-in built earlier, no registry having it ($current)"
      return 0
    fi
  elif docker pull -q "$name" >/dev/null 2>&1; then
    say "$name: pulled"
    return 0
  fi
  say "$name: no registry has it here; building a stand-in ($what)"
  debian_base "$suite"
  docker build -q --network host -f "$here/$kind.Dockerfile" \
    --build-arg "BASE=topoplay-standin/debian:$suite" -t "$name" "$context" >/dev/null
  what="$what $(docker run --rm --entrypoint sh "$name" -c "$version")"
  echo "FROM $name" | docker build -q --label "org.topoplay.standin=$what, recipe $recipe" \
    -t "$name" - >/dev/null
  say "$name: stand-in built ($what)"
}

# The names the Dockerfile and compose.yaml use.
node_major="$(sed -n 's/^ARG NODE_VERSION=//p' "$root/Dockerfile")"
node_image="$(sed -n 's/^FROM \(node:\)\${NODE_VERSION}\(-[^ ]*\).*/\1'"$node_major"'\2/p' "$root/Dockerfile" | sort -u)"
image_of() { sed -n "s/^    image: \($1:[^ ]*\)$/\1/p" "$root/compose.yaml"; }

# Node.js: the distribution the npm registry's `node` package holds (scripts/node24.sh, the same
# release the tests run on), and the npm that runs here, as the npm registry has it.
node_dir="$npm_config_nodedir"
node_version="$(node --version | tr -d v)"
npm_version="$(npm --version)"
node_context="$cache/node-$node_version-npm-$npm_version"
if [ ! -d "$node_context" ]; then
  part="$node_context.part"
  rm -rf "$part" && mkdir -p "$part/node/bin" "$part/node/lib/node_modules/npm"
  cp -a "$node_dir/bin/node" "$part/node/bin/"
  cp -a "$node_dir/include" "$part/node/"
  (cd "$part" && npm pack --silent "npm@$npm_version" >/dev/null)
  tar -xzf "$part/npm-$npm_version.tgz" --strip-components=1 -C "$part/node/lib/node_modules/npm"
  rm "$part/npm-$npm_version.tgz"
  mv "$part" "$node_context"
fi
cp /etc/ssl/certs/ca-certificates.crt "$node_context/host-ca.crt"

# The Debian root file systems that the missing images need, made side by side (debootstrap mostly
# waits on the mirror).
declare -A suites=()
for pair in "bookworm $node_image" "forky $(image_of nginx)" "bookworm $(image_of postgres)" \
  "bookworm $(image_of redis)"; do
  read -r suite name <<<"$pair"
  if ! docker image inspect "$name" >/dev/null 2>&1 && ! docker pull -q "$name" >/dev/null 2>&1; then
    suites[$suite]=1
  fi
done
missing_roots=()
for suite in "${!suites[@]}"; do
  [ -s "$cache/debian-$suite.tar" ] || missing_roots+=("$suite")
done
[ "${#missing_roots[@]}" -eq 0 ] || need_debootstrap
pids=()
for suite in "${!suites[@]}"; do
  debian_base "$suite" &
  pids+=($!)
done
for pid in "${pids[@]}"; do wait "$pid"; done

standin node "$node_image" bookworm "$node_context" \
  "Debian bookworm, Node.js and npm from the npm registry:" 'echo "$(node --version), npm $(npm --version)"'
standin nginx "$(image_of nginx)" forky "$here" "Debian forky, Debian's nginx" \
  'nginx -v 2>&1 | sed "s|.*/||"'
standin postgres "$(image_of postgres)" bookworm "$here" "Debian bookworm, Debian's PostgreSQL" \
  'ls /usr/lib/postgresql'
standin redis "$(image_of redis)" bookworm "$here" "Debian bookworm, Debian's Redis" \
  'redis-server --version | sed "s/.* v=\([^ ]*\).*/\1/"'
