#!/usr/bin/env bash
# Installs the older CLIs the compatibility suite runs, each built from the Go module proxy once
# and cached in the Go bin folder under a versioned name (terraform-1.5.7, terraform-1.8.5,
# tofu-1.6.3). A build takes 13 to 23 minutes on two cores the first time and nothing after.
# Prints the path of every CLI it has, one per line.
set -euo pipefail

gobin="$(go env GOBIN)"
[ -n "$gobin" ] || gobin="$(go env GOPATH)/bin"

# name version module package
clis=(
  "terraform 1.5.7 github.com/hashicorp/terraform ."
  "terraform 1.8.5 github.com/hashicorp/terraform ."
  "tofu 1.6.3 github.com/opentofu/opentofu ./cmd/tofu"
)

for line in "${clis[@]}"; do
  read -r name version module pkg <<<"$line"
  want="$gobin/$name-$version"
  if [ ! -x "$want" ]; then
    echo "compat: building $name $version from $module (once; 13-23 minutes on two cores)" >&2
    tmp="$(mktemp -d)"
    target="$module"
    [ "$pkg" = "." ] || target="$module/${pkg#./}"
    if GOBIN="$tmp" GOFLAGS=-buildvcs=false go install "$target@v$version" >&2; then
      mv "$tmp/$name" "$want"
    else
      echo "compat: could not build $name $version; it is left out" >&2
    fi
    rm -rf "$tmp"
  fi
  [ -x "$want" ] && echo "$want"
done
exit 0
