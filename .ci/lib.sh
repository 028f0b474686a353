# Helpers sourced by .ci/run and .ci/multipython.sh (bash, set -euo pipefail).

# A header that stands out in a long CI log, with the wall-clock time.
section() {
    printf '\n==== %s ==== (%s)\n' "$*" "$(date -u +%H:%M:%S)"
}

# pip prints one WARNING per package for each configured extra index it cannot
# read; on a machine whose pip.conf lists local mirrors that buries the log.
# sed, unlike grep -v, exits 0 when it prints nothing (pipefail stays honest).
without_pip_noise() {
    sed -u "/^WARNING: Location '.*' is ignored: it is neither a file nor a directory\.$/d"
}

# cpu_of FILE COMMAND...: run COMMAND, then write to FILE the CPU seconds (user
# plus system) it and every process under it used; returns COMMAND's status.
# Run it in a subshell of its own: `times` counts all that shell's children.
cpu_of() {
    local file=$1 rc=0
    shift
    "$@" || rc=$?
    # times' second line, the children's: "XmY.YYYs XmY.YYYs" (user, system).
    # Not in a pipeline: a pipeline's subshell has no children of its own.
    times >"$file.times"
    sed -n 2p "$file.times" | awk '{
        total = 0
        for (i = 1; i <= 2; i++) { split($i, t, "m"); total += t[1] * 60 + t[2] }
        printf "%d\n", total + 0.5 }' >"$file"
    rm -f "$file.times"
    return "$rc"
}

# The root of pyenv's interpreters: `pyenv root`, else $PYENV_ROOT, else ~/.pyenv.
pyenv_root() {
    pyenv root 2>/dev/null || echo "${PYENV_ROOT:-$HOME/.pyenv}"
}

# The newest CPython MINOR.N under pyenv (free-threaded and dev builds excluded),
# or nothing.
find_python() {
    local minor=$1 root candidate
    root=$(pyenv_root)
    for candidate in $(ls -d "$root/versions/$minor".* 2>/dev/null | sort -V -r); do
        if [[ $(basename "$candidate") =~ ^${minor//./\\.}\.[0-9]+$ ]] \
            && [[ -x $candidate/bin/python ]]; then
            echo "$candidate/bin/python"
            return 0
        fi
    done
}

# library_venv WORK REQUIREMENTS: a fresh venv WORK/venv with an accel-agent
# wheel built into WORK/dist (by .venv's python when there is one) and the
# pins of REQUIREMENTS: what every library suite's script starts from.
library_venv() {
    local work=$1 requirements=$2 build_python=python3
    [[ -x .venv/bin/python ]] && build_python=.venv/bin/python
    mkdir -p "$work/dist"
    "$build_python" -m pip --disable-pip-version-check wheel -q --no-deps -w "$work/dist" . 2>&1 \
        | without_pip_noise
    python3 -m venv "$work/venv"
    "$work/venv/bin/python" -m pip --disable-pip-version-check install -q \
        "$work"/dist/accel_agent-*.whl -r "$requirements" 2>&1 | without_pip_noise
}
