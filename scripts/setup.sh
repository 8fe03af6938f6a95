#!/usr/bin/env bash
# Installs the system packages syncmut needs, only those that are missing.
# Idempotent: a second run installs nothing. Needs root (or sudo) on Debian 12.
set -euo pipefail

# chromium: only for tests/html_report.rs (the HTML report loaded headless).
# cmake, make: only for tests/project_build.rs (a project built through its own build).
# cvc5: the second SMT solver (`--solver cvc5`, tests/solver.rs).
# libclang-rt-16-dev: the sanitizers' runtime, for SYNCMUT_SANITIZE=1 and
# tests/sanitizers.rs (the runtime library under ASan and UBSan).
PACKAGES=(clang-16 llvm-16-dev libclang-rt-16-dev libsystemc-dev z3 cvc5 chromium cmake make)

missing=()
for pkg in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done

# The test suite's runner (README); the Rust toolchain of these machines carries it.
if ! cargo nextest --version >/dev/null 2>&1; then
  echo "setup: installing cargo-nextest (the test runner) from crates.io"
  cargo install --locked cargo-nextest
fi

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all system packages present (${PACKAGES[*]})"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "setup: need root to install: ${missing[*]}" >&2; exit 1; }
  SUDO="sudo"
fi
echo "setup: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
echo "setup: done"
