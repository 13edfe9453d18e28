#!/usr/bin/env bash
# Installs the headless browser the browser tests drive (`pnpm test:browser`):
# Debian's chromium, unless /usr/bin/chromium is already there. playwright-core
# never downloads a browser of its own.
set -euo pipefail
if [ -x /usr/bin/chromium ]; then
  echo "install-browser: $(/usr/bin/chromium --version 2>/dev/null || echo chromium) already installed"
  exit 0
fi
if [ "$(id -u)" -eq 0 ]; then
  sudo=()
elif command -v sudo >/dev/null 2>&1; then
  sudo=(sudo)
else
  echo "install-browser: not root and no sudo; install Debian's chromium package by hand" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update
"${sudo[@]}" apt-get install -y --no-install-recommends chromium
echo "install-browser: $(/usr/bin/chromium --version)"
