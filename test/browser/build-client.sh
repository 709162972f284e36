#!/usr/bin/env bash
# Builds the PresQT web client (presqt-ui) for test/browser/presqt-ui.spec.ts, in a cache folder outside this
# repository: the client carries no license, so none of it is committed here.
#
#   bash test/browser/build-client.sh <a checkout of Lucy-Family-Institute/presqt-ui, or a git directory of it>
#
# The build calls https://127.0.0.1:48443/api_v1/ (the client inlines its API address at build time and
# hard-codes https); the browser test puts TLS in front of the API on that port. PRESQT_UI_CACHE chooses the
# cache folder (default ~/.cache/presqt-ui), PRESQT_UI_REF the branch or commit (default develop).
set -euo pipefail

source_repo="${1:?usage: build-client.sh <presqt-ui checkout or git directory>}"
cache="${PRESQT_UI_CACHE:-$HOME/.cache/presqt-ui}"
ref="${PRESQT_UI_REF:-develop}"
api_address="127.0.0.1:48443"

rm -rf "$cache/src" "$cache/build"
mkdir -p "$cache/src"
git --git-dir="$(git -C "$source_repo" rev-parse --absolute-git-dir)" archive "$ref" | tar -x -C "$cache/src"
cd "$cache/src"

# its lockfile (v1) resolves on the npm registry; no install script is needed for a build
npm ci --no-audit --no-fund --ignore-scripts
# webpack 4 hashes with MD4, which Node 17+ offers only with the legacy OpenSSL provider
NODE_OPTIONS=--openssl-legacy-provider REACT_APP_API_SERVER="$api_address" REACT_APP_API_URL_ROOT=api_v1 \
  PUBLIC_URL=/ui GENERATE_SOURCEMAP=false CI=false npx react-scripts build

mv build "$cache/build"
echo "$api_address" >"$cache/api-address"
echo "Built the PresQT web client into $cache/build (calls https://$api_address/api_v1/)"
