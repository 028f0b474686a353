"""The ``accel-agent`` command: verify, calibrate, status, run, enable, disable, bench.

Exit codes are named constants (coverage.py's ``cmdline.py`` practice) and
documented in docs/cli.md; every expected error becomes one line on stderr
and a code, never a traceback.
"""

from __future__ import annotations

import json
import os
import sys

import click

from accel_agent import __version__, _boot, config
from accel_agent.bench.families import FAMILIES  # names only: no family module is imported

OK = 0
UNHEALTHY = 1  # verify: something that should be accelerated is not
USAGE = 2  # click's own code for bad arguments
CANNOT_WRITE = 3  # enable/disable: the environment's site-packages is not writable
NOT_INSTALLED = 4  # enable/status: the start-up hook is not installed in this environment
NOTHING_MEASURED = 5  # bench: no row could be measured (pycryptodome missing, say)
BAD_REPORT = 6  # report: a file is not a savings report, or none was found
COMMAND_NOT_FOUND = 127  # run: the command does not exist (as a shell says)
BROKEN_ROWS = 1  # bench: a row's outputs differed from native pycryptodome's, or it raised

ACTIVE_MODES = ("on", "quiet", "assert", "shadow")
_MODE_HELP = (
    "on: two status lines on stderr; quiet: silent, problems only; "
    "assert: exit 1 before the program runs unless accelerated; "
    "shadow: as on, and a sampled share of calls is redone natively and compared."
)


def _fail(message: str, code: int) -> None:
    click.echo("accel-agent: %s" % message, err=True)
    sys.exit(code)


def _hook_paths() -> tuple[str, str]:
    """(.pth path, default file path): both live in the site-packages the agent is installed in."""
    conf_path = _boot.default_file_path()
    return os.path.join(os.path.dirname(conf_path), "accel_agent.pth"), conf_path


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="accel-agent")
def cli() -> None:
    """accel-agent: pycryptodome on OpenSSL, with no change to the application."""


@cli.command(short_help="Check this machine and every primitive; exit 1 if unhealthy.")
@click.option("--json", "as_json", is_flag=True, help="Print the facts as JSON (for fleets).")
@click.option(
    "--no-cpuinfo",
    is_flag=True,
    help="Skip py-cpuinfo's CPU brand lookup (it takes about a second).",
)
def verify(as_json: bool, no_cpuinfo: bool) -> None:
    """Check this machine: platform, CPU, OpenSSL, every primitive; exit 1 if unhealthy."""
    from accel_agent import activation, registry, report, verify_report

    activation.activate("quiet")
    # The report names every fallback; quiet mode's stderr line for each would repeat it.
    saved, registry.report_fallbacks = registry.report_fallbacks, False
    try:
        verify_report.exercise_targets()
        facts = report.summary(resolve=True)
    finally:
        registry.report_fallbacks = saved
    facts["libraries"].update(verify_report.target_library_versions())
    facts["cpu"] = verify_report.cpu_details(facts["platform"], use_cpuinfo=not no_cpuinfo)
    facts["environment"] = _environment_facts()
    facts["calibration"] = verify_report.calibration_facts()
    if as_json:
        click.echo(json.dumps(facts, indent=2, sort_keys=True))
    else:
        click.echo(verify_report.render(facts, styled=True))
    sys.exit(OK if facts["healthy"] else UNHEALTHY)


@cli.command(short_help="Time OpenSSL against native here; cache the faster choice.")
@click.option("--json", "as_json", is_flag=True, help="Print the measurements as JSON.")
@click.option("--quick", is_flag=True, help="Shorter timings (noisier).")
def calibrate(as_json: bool, quick: bool) -> None:
    """Time OpenSSL against native pycryptodome here and cache the faster choice per primitive."""
    from accel_agent import calibrate as _calibrate

    def progress(name: str) -> None:
        click.echo("accel-agent: timing %s" % name, err=True)

    document = _calibrate.measure(budget_s=0.005 if quick else 0.02, progress=progress)
    path = _calibrate.write(document)
    if as_json:
        click.echo(json.dumps(document, indent=2, sort_keys=True))
        return
    for name, choice in sorted(document["preferred"].items()):
        click.echo("%-16s %s" % (name, _CHOICE_WORDS.get(choice, choice)))
    for primitive, table in sorted(document["thresholds"].items()):
        for name, count in sorted(table.items()):
            click.echo("%-16s OpenSSL below %d iterations of %s, native from there" % (
                primitive, count, name))  # fmt: skip
    click.echo("cached in %s" % path)


# What a cached choice means, for a person ("any": every provider beat native here).
_CHOICE_WORDS = {
    "any": "OpenSSL (faster than native here)",
    "native": "native (faster than OpenSSL here)",
}


def _environment_facts() -> dict[str, object]:
    pth_path, conf_path = _hook_paths()
    conf = config.read_conf_file(conf_path)
    return {
        "pth_path": pth_path,
        "pth_installed": os.path.exists(pth_path),
        "default_file": conf_path,
        "default_mode": conf.values.get("mode", config.DEFAULT_MODE),
        "default_exclude": conf.values.get("exclude", ""),
        "default_key_reuse": conf.values.get("key_reuse", ""),
        "env_mode": os.environ.get(config.ENV_MODE),
        "env_exclude": os.environ.get(config.ENV_EXCLUDE),
        "env_key_reuse": os.environ.get(config.ENV_KEY_REUSE),
        "conf_warnings": conf.warnings,
    }


@cli.command(short_help="Show this environment's default mode and start-up hook.")
@click.option("--json", "as_json", is_flag=True, help="Print as JSON.")
def status(as_json: bool) -> None:
    """Show this environment's default mode and where the start-up hook lives."""
    facts = _environment_facts()
    if as_json:
        click.echo(json.dumps(facts, indent=2, sort_keys=True))
        return
    click.echo(
        "start-up hook:  %s (%s)"
        % (facts["pth_path"], "installed" if facts["pth_installed"] else "MISSING")
    )
    click.echo("default mode:   %s (%s)" % (facts["default_mode"], facts["default_file"]))
    if facts["default_exclude"]:
        click.echo("default exclude: %s" % facts["default_exclude"])
    click.echo(
        "ACCEL_AGENT:    %s" % (facts["env_mode"] if facts["env_mode"] is not None else "(unset)")
    )
    if facts["env_exclude"]:
        click.echo("ACCEL_AGENT_EXCLUDE: %s" % facts["env_exclude"])
    if facts["default_key_reuse"]:
        click.echo("default key_reuse: %s" % facts["default_key_reuse"])
    if facts["env_key_reuse"]:
        click.echo("ACCEL_AGENT_KEY_REUSE: %s" % facts["env_key_reuse"])
    for warning in facts["conf_warnings"]:
        click.echo("accel-agent: %s" % warning, err=True)


@cli.command(
    short_help="Run a command with the agent on, its Python children included.",
    context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False},
)
@click.option(
    "--mode", type=click.Choice(ACTIVE_MODES), default="on", show_default=True, help=_MODE_HELP
)
@click.argument("command", nargs=-1, required=True, type=click.UNPROCESSED)
def run(mode: str, command: tuple[str, ...]) -> None:
    """Run COMMAND with the agent active in it and in every Python child it starts."""
    environment = dict(os.environ)
    environment[config.ENV_MODE] = mode
    try:
        os.execvpe(command[0], list(command), environment)
    except FileNotFoundError:
        _fail("command not found: %s" % command[0], COMMAND_NOT_FOUND)
    except OSError as exc:
        _fail("cannot run %s: %s" % (command[0], exc.strerror or exc), COMMAND_NOT_FOUND)


@cli.command(short_help="Make a mode this environment's default (no flag needed).")
@click.option(
    "--mode", type=click.Choice(ACTIVE_MODES), default="quiet", show_default=True, help=_MODE_HELP
)
@click.option(
    "--exclude", default=None, help="Comma-separated families, primitives or providers kept native."
)
@click.option(
    "--key-reuse",
    type=click.Choice(("on", "off")),
    default=None,
    help="Reuse the expanded key of the last key object per AEAD (docs/security.md).",
)
def enable(mode: str, exclude: str | None, key_reuse: str | None) -> None:
    """Make MODE this environment's default: every Python started here runs with the agent."""
    pth_path, conf_path = _hook_paths()
    if not os.path.exists(pth_path):
        _fail(
            "the start-up hook %s is not installed; reinstall accel-agent" % pth_path, NOT_INSTALLED
        )
    values = dict(config.read_conf_file(conf_path).values)
    values["mode"] = mode
    if exclude is not None:
        values["exclude"] = ",".join(sorted(config.parse_exclusions(exclude)))
    if key_reuse is not None:
        values["key_reuse"] = key_reuse
    try:
        config.write_conf_file(conf_path, values)
    except OSError as exc:
        _fail("cannot write %s (%s)" % (conf_path, exc.strerror or exc), CANNOT_WRITE)
    click.echo("accel-agent: default mode for %s is now %s" % (os.path.dirname(conf_path), mode))


@cli.command(short_help="Remove this environment's default mode.")
def disable() -> None:
    """Remove this environment's default: the agent runs only when asked (-X accel, ACCEL_AGENT)."""
    _, conf_path = _hook_paths()
    try:
        os.remove(conf_path)
    except FileNotFoundError:
        pass
    except OSError as exc:
        _fail("cannot remove %s (%s)" % (conf_path, exc.strerror or exc), CANNOT_WRITE)
    click.echo(
        "accel-agent: no default mode for %s (off unless asked)" % os.path.dirname(conf_path)
    )


def _comma_list(value: tuple[str, ...]) -> list[str]:
    return [part.strip() for item in value for part in item.split(",") if part.strip()]


def _sizes(_ctx: click.Context, _param: click.Parameter, value: str | None) -> list[int]:
    """ "64,1K,16KiB,1M" -> [64, 1024, 16384, 1048576]."""
    sizes = []
    for part in _comma_list((value,) if value else ()):
        text = part.upper().replace("IB", "").replace("B", "")
        scale = {"K": 1024, "M": 1024 * 1024}.get(text[-1:], 1)
        try:
            sizes.append(int(text[:-1] if scale > 1 else text) * scale)
        except ValueError:
            raise click.BadParameter("%r is not a size like 64, 1K or 1M" % part) from None
    return sizes


def _thread_counts(value: str | None) -> list[int]:
    """ "1,2,cores" -> [1, 2, os.cpu_count()]; a count below 1 or not a number is a usage error."""
    counts = []
    for part in _comma_list((value,) if value else ()):
        if part == "cores":
            part = str(os.cpu_count() or 1)
        if not part.isdigit() or int(part) < 1:
            raise click.BadParameter("%r is not a thread count" % part, param_hint="--threads")
        if int(part) not in counts:  # "1,2,cores" on two cores: 1 and 2, once each
            counts.append(int(part))
    return counts


@cli.command()
@click.option("--quick", is_flag=True, help="Only 64 B and 16 KiB, short samples (< 30 s).")
@click.option(
    "--family",
    "families",
    multiple=True,
    metavar="NAME",
    help="Only these families (repeat or comma-separate): %s." % ", ".join(FAMILIES),
)
@click.option(
    "--rows", multiple=True, metavar="TEXT", help="Only rows whose label contains one of these."
)
@click.option(
    "--sizes",
    callback=_sizes,
    metavar="LIST",
    help="Message sizes, e.g. 64,1K,16K,1M (default: these four; --quick: 64,16K).",
)
@click.option(
    "--csv",
    "csv_path",
    default="accel-agent-bench.csv",
    show_default=True,
    metavar="PATH",
    help="The rows as CSV.",
)
@click.option(
    "--chart",
    "chart_path",
    default="accel-agent-bench.png",
    show_default=True,
    metavar="PATH",
    help="PNG chart of the speed-ups (needs matplotlib: pip install 'accel-agent[chart]').",
)
@click.option("--no-files", is_flag=True, help="Write neither the CSV nor the chart.")
@click.option("--aesni-ab", is_flag=True, help="Repeat the AES rows with OpenSSL's AES-NI masked.")
@click.option(
    "--check-goals",
    is_flag=True,
    help="Report the project's performance targets (docs/performance.md) as PASS/FAIL.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the measurements as JSON.")
@click.option(
    "--progress/--no-progress", default=None, help="Progress bar on stderr [default: on a tty]."
)
@click.option(
    "--clock",
    type=click.Choice(["cpu", "wall"]),
    default="cpu",
    show_default=True,
    help="cpu: this thread's CPU time, immune to other processes; wall: the wall clock.",
)
@click.option(
    "--threads",
    "thread_counts",
    metavar="LIST",
    help="Also run the bulk rows (1 MiB) on these thread counts at once, e.g. 1,2,cores "
    "(cores: this machine's CPU count): aggregate MB/s on the wall clock.",
)
@click.option(
    "--reps", type=click.IntRange(min=1), metavar="N", help="Interleaved samples per variant."
)
@click.option("--loops", type=click.IntRange(min=1), metavar="N", help="Timing loops per sample.")
@click.option(
    "--sample-ms", type=click.FloatRange(min=0.01), metavar="MS", help="Length of one sample."
)
def bench(
    quick: bool,
    families: tuple[str, ...],
    rows: tuple[str, ...],
    sizes: list[int],
    csv_path: str,
    chart_path: str,
    no_files: bool,
    aesni_ab: bool,
    check_goals: bool,
    as_json: bool,
    progress: bool | None,
    clock: str,
    reps: int | None,
    loops: int | None,
    sample_ms: float | None,
    thread_counts: str | None,
) -> None:
    """Time pycryptodome (and the other libraries) native, under the agent, and cryptography.

    Prints one table per family, writes the rows as CSV and a PNG chart of
    the speed-ups; exit 1 if a row's outputs differ from the native library's.
    """
    from accel_agent.bench import aesni, command

    try:
        options = command.Options(
            families=_comma_list(families),
            quick=quick,
            rows=_comma_list(rows),
            sizes=sizes,
            reps=reps,
            loops=loops,
            sample_ms=sample_ms,
            clock=clock,
            csv_path=None if no_files else csv_path,
            chart_path=None if no_files else chart_path,
            as_json=as_json,
            threads=_thread_counts(thread_counts),
            check_goals=check_goals,
            aesni_ab=aesni_ab,
            progress=progress,
        )
    except command.UnknownFamily as exc:
        raise click.BadParameter(str(exc), param_hint="'--family'") from None
    try:
        outcome = command.execute(options)
    except aesni.MaskedRunFailed as exc:
        _fail("the AES-NI-masked run failed: %s" % exc, BROKEN_ROWS)
    except BrokenPipeError:
        # stdout was closed early (`| head`): no reader is left. Python's docs'
        # recipe: point stdout at devnull so the exit's flush does not fail again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(OK)
    except OSError as exc:
        _fail("cannot write %s (%s)" % (exc.filename, exc.strerror or exc), CANNOT_WRITE)
    if outcome.chart_problem:
        click.echo("accel-agent: no chart: %s" % outcome.chart_problem, err=True)
    if outcome.broken:
        _fail("a row's outputs differed from the native library's, or it raised", BROKEN_ROWS)
    if not outcome.measured:
        _fail(
            "nothing measured: every selected family or row was left out (is pycryptodome "
            "installed? pip install 'accel-agent[pycryptodome]')",
            NOTHING_MEASURED,
        )
    sys.exit(OK)


@cli.command(short_help="Merge savings reports (ACCEL_AGENT_REPORT files) into one account.")
@click.option("--json", "as_json", is_flag=True, help="Print the merged account as JSON.")
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True))
def report(as_json: bool, paths: tuple[str, ...]) -> None:
    """Merge the savings reports in PATHS (files or directories) into one table.

    Per primitive: calls, bytes, the agent's CPU time against native's, the
    CPU seconds saved (measured by shadow mode, else estimated from this
    machine's calibration, marked ~), mismatches, and the processes and
    hosts seen.
    """
    from accel_agent import calibration, savings_merge

    files = savings_merge.report_files(list(paths))
    if not files:
        _fail("no report files in %s" % ", ".join(paths), BAD_REPORT)
    try:
        documents = [savings_merge.load(path) for path in files]
    except savings_merge.ReportError as exc:
        _fail(str(exc), BAD_REPORT)
    merged = savings_merge.merge(documents, calibration.measured_speedups())
    if as_json:
        click.echo(json.dumps(merged, indent=2, sort_keys=True))
        return
    for line in savings_merge.table(merged):
        click.echo(line)


def main(argv: list[str] | None = None) -> int:
    """Entry point of the console script and of ``python -m accel_agent``."""
    try:
        cli.main(args=argv, prog_name="accel-agent", standalone_mode=True)
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    return OK
