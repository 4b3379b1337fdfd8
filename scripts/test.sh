#!/usr/bin/env bash
# Installs hvnet with its test tools, then runs the whole test suite:
# Rust (format, lints, tests) and Python (types, tests). Used by .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n== %s\n' "$*"; }

step "install hvnet (Rust core built by maturin) and the test tools"
python3 -m pip install --quiet --disable-pip-version-check -e '.[test]'

step "Rust: format, lints, tests"
cargo fmt --all --check
cargo clippy --quiet --workspace --all-targets -- -D warnings
cargo test --quiet --workspace --exclude hvnet-python

step "Python: types, tests"
python3 -m mypy
python3 -m pytest
