# Helpers sourced by .ci/app-suites/NAME.sh (bash, set -euo pipefail, cwd = repo root).
#
# app_suite NAME PACKAGE REQUIRED -- PYTEST_ARGS...
#   NAME      the application's PyPI name; requirements/apps/NAME.txt pins it
#             (NAME==VERSION on a line of its own), its crypto library and
#             what its tests import
#   PACKAGE   the crypto package the agent must patch for it (Crypto, Cryptodome, rsa...)
#   REQUIRED  primitives that must serve calls under the agent, comma-separated
# Makes a venv of its own (an application's optional dependencies decide
# which crypto path it takes, so two applications never share one), takes
# the tests from NAME's sdist on PyPI (pip download --no-binary :all:), and
# runs tests/suite/pytest_suite.py on them. The accel-agent wheel is built once
# per CI run into build/app-suites/dist (make app-suites removes it first).

APP_SUITES=$PWD/build/app-suites  # build/ is gitignored; absolute for the children

app_wheel() {
    local build_python=python3
    [[ -x .venv/bin/python ]] && build_python=.venv/bin/python
    if ! ls "$APP_SUITES"/dist/accel_agent-*.whl >/dev/null 2>&1; then
        mkdir -p "$APP_SUITES/dist"
        "$build_python" -m pip --disable-pip-version-check wheel -q --no-deps \
            -w "$APP_SUITES/dist" . 2>&1 | without_pip_noise
    fi
    ls "$APP_SUITES"/dist/accel_agent-*.whl
}

app_suite() {
    local name=$1 package=$2 required=$3
    shift 3
    [[ ${1:-} == -- ]] && shift
    local pins=requirements/apps/$name.txt work=$APP_SUITES/$name version wheel
    version=$(sed -n "s/^$name==//p" "$pins")
    [[ -n $version ]] || { echo "$pins pins no $name==VERSION" >&2; return 2; }
    wheel=$(app_wheel)
    rm -rf "$work" && mkdir -p "$work/sdist"
    python3 -m venv "$work/venv"
    # The sdist download (pip builds its metadata) runs while the venv installs.
    "$work/venv/bin/python" -m pip --disable-pip-version-check download -q --no-deps \
        --no-binary :all: -d "$work/sdist" "$name==$version" >"$work/download.log" 2>&1 &
    local download=$!
    "$work/venv/bin/python" -m pip --disable-pip-version-check install -q "$wheel" -r "$pins" \
        2>&1 | without_pip_noise
    if ! wait "$download"; then
        without_pip_noise <"$work/download.log"
        return 2
    fi
    local archive
    archive=$(ls "$work"/sdist/*.tar.gz)
    tar -xzf "$archive" -C "$work/sdist"
    local root
    root=$(ls -d "$work"/sdist/*/)
    echo "$name $version: tests from $(basename "$archive"); pytest ${*}"
    "$work/venv/bin/python" tests/suite/pytest_suite.py --name "$name" --root "$root" \
        --package "$package" --require "$required" --distribution "$name" --work-dir "$work/runs" \
        --json-out "$work/verdict.json" -- "$@"
}

# excluded FILE: the test ids listed in FILE's "# exclude: ID  reason" lines,
# as pytest --deselect arguments (the reasons stay next to the ids, in the script).
excluded() {
    sed -n 's/^# exclude: \([^ ]*\).*/--deselect=\1/p' "$1"
}
