#!/usr/bin/env bash
# Installs hvnet with its test tools, then runs the whole test suite:
# Rust (format, lints, tests) and Python (format, lints, types, the core's
# stubs, the layers' contract, tests). Used by .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n== %s\n' "$*"; }

step "install Debian's Chromium and its driver (report and web browser tests) and iproute2 (hvnet lab), if missing"
missing=()
if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then missing+=(chromium chromium-driver); fi
if ! command -v ip >/dev/null || ! command -v tc >/dev/null || ! command -v bridge >/dev/null; then missing+=(iproute2); fi
if [ "${#missing[@]}" -gt 0 ]; then
    sudo_if_needed() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
    sudo_if_needed apt-get update -qq
    DEBIAN_FRONTEND=noninteractive sudo_if_needed apt-get install -y -qq "${missing[@]}" >/dev/null
fi

step "Rust's format and lint tools, if missing"
if command -v rustup >/dev/null; then
    rustup component add rustfmt clippy >/dev/null 2>&1 || true
fi
cargo fmt --version >/dev/null && cargo clippy --version >/dev/null

step "install hvnet (Rust core built by maturin) and the test tools"
python3 -m pip install --quiet --disable-pip-version-check -e '.[test]'

step "Rust: format, lints, docs' links, tests"
cargo fmt --all --check
cargo clippy --quiet --workspace --all-targets -- -D warnings
RUSTDOCFLAGS="-D warnings" cargo doc --quiet --workspace --no-deps
cargo test --quiet --workspace --exclude hvnet-python

step "Python: format, lints, types (package, tests, benchmarks)"
python3 -m ruff format --check python tests bench
python3 -m ruff check python tests bench
python3 -m mypy

step "Python: the core's type stubs match the built core; the layers of docs/architecture.md hold"
python3 -m mypy.stubtest hvnet._core
lint-imports

step "Python: tests"
python3 -m pytest
