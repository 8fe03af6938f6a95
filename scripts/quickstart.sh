#!/usr/bin/env bash
# The README's first command: install what is missing, build syncmut, and run the main
# job on the bundled running example.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cargo build --release --quiet
exec target/release/syncmut run examples/systemc/guarded_event "$@"
