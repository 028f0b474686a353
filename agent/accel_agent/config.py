"""Modes and options: from ``-X accel=...``, ``ACCEL_AGENT``, and the environment's default file.

Every setting is declared once in :data:`SETTINGS` (name, where it is read
from, default, accepted values); ``docs/activation.md`` is checked against it
by the tests. This module knows nothing of algorithms and imports only the
standard library's lightest modules, because it runs at start-up.
"""

from __future__ import annotations

import os
import sys

MODES = ("on", "quiet", "assert", "shadow", "off")
DEFAULT_MODE = "off"

# Spellings people reach for first; each maps onto one of MODES.
_MODE_ALIASES = {
    "": "off",
    "0": "off",
    "false": "off",
    "no": "off",
    "1": "on",
    "true": "on",
    "yes": "on",
}

XOPTION = "accel"
ENV_MODE = "ACCEL_AGENT"
ENV_EXCLUDE = "ACCEL_AGENT_EXCLUDE"
ENV_KEY_REUSE = "ACCEL_AGENT_KEY_REUSE"
ENV_SPEEDUPS = "ACCEL_AGENT_SPEEDUPS"
ENV_SHADOW_RATE = "ACCEL_AGENT_SHADOW_RATE"
ENV_SHADOW_SEED = "ACCEL_AGENT_SHADOW_SEED"
ENV_REPORT = "ACCEL_AGENT_REPORT"
DEFAULT_SHADOW_RATE = 0.01


class Setting:
    """One configurable value and every place it can come from.

    ``sources`` are those places, None where it is not read from: the
    ``-X`` option, the environment variable, the key in the default file.
    ``default`` applies where none of them gives a value (empty: nothing).
    """

    __slots__ = ("name", "xoption", "env", "conf_key", "default", "accepted", "help")

    def __init__(
        self,
        name: str,
        sources: tuple[str | None, str | None, str | None],
        accepted: str,
        help: str,
        default: str = "",
    ) -> None:
        self.name = name
        self.xoption, self.env, self.conf_key = sources
        self.default = default
        self.accepted = accepted
        self.help = help


SETTINGS = (
    Setting(
        name="mode",
        sources=(XOPTION, ENV_MODE, "mode"),
        default=DEFAULT_MODE,
        accepted="on | quiet | assert | shadow | off",
        help="whether the agent activates, and how loudly; shadow: as on, and a sampled "
        "share of accelerated work is redone natively and compared; -X wins over the "
        "variable, which wins over `accel-agent enable`",
    ),
    Setting(
        name="exclude",
        sources=(None, ENV_EXCLUDE, "exclude"),
        accepted="comma-separated families (aes), primitives (aes-gcm) or providers (openssl)",
        help="what must stay native even where a faster provider passed its checks",
    ),
    Setting(
        name="key_reuse",
        sources=(None, ENV_KEY_REUSE, "key_reuse"),
        default="on",
        accepted="on | off (anything else: off, with a warning)",
        help="keep, per provider, the key object last used and what pyca/cryptography "
        "made of it (an AEAD's expanded key, an algorithms.AES object), and reuse them "
        "while that same object comes back; off: no key outlives the objects made "
        "with it (docs/security.md)",
    ),
    Setting(
        name="speedups",
        sources=(None, ENV_SPEEDUPS, None),
        default="on",
        accepted="on | off (anything else: on, with a warning)",
        help="the compiled per-call fast path (accel_agent._speedups) where the wheel "
        "has it; off: the pure-Python paths, as on a machine without a C compiler "
        "(same results, slower per call; a way to rule the C code out)",
    ),
    Setting(
        name="shadow_rate",
        sources=(None, ENV_SHADOW_RATE, None),
        default=str(DEFAULT_SHADOW_RATE),
        accepted="a fraction from 0 to 1 (anything else: the default, with a warning)",
        help="in shadow mode, the share of one-shot calls and of streaming objects that "
        "native pycryptodome redoes and the agent compares (docs/shadow.md)",
    ),
    Setting(
        name="shadow_seed",
        sources=(None, ENV_SHADOW_SEED, None),
        accepted="an integer (anything else: unseeded, with a warning)",
        help="seeds shadow mode's own sampling draws, so that a run samples the same calls "
        "again (tests); unseeded, the draws come from the OS, never from the program's "
        "random module",
    ),
    Setting(
        name="report",
        sources=(None, ENV_REPORT, None),
        accepted="a file, or an existing directory (one file per process, by host and pid)",
        help="where the savings report goes, at exit and on accel_agent.write_report(): "
        "calls, bytes, native fallbacks, shadow timings and mismatches (docs/shadow.md)",
    ),
)


class ConfigError(ValueError):
    """A setting has a value the agent does not accept."""


class ModeChoice:
    """The mode in force, where it came from, and any problem met on the way.

    ``source`` is one of "-X accel", "ACCEL_AGENT", "default file",
    "built-in default"; ``fatal`` marks a problem that must stop the program
    (a mistyped ``assert``).
    """

    __slots__ = ("mode", "source", "problem", "fatal")

    def __init__(self, mode: str, source: str, problem: str | None = None, fatal: bool = False):
        self.mode = mode
        self.source = source
        self.problem = problem
        self.fatal = fatal

    def __repr__(self) -> str:
        return "ModeChoice(%r, %r, problem=%r, fatal=%r)" % (
            self.mode,
            self.source,
            self.problem,
            self.fatal,
        )


class ConfFile:
    """The environment-wide default file written by ``accel-agent enable``."""

    __slots__ = ("values", "warnings")

    def __init__(self) -> None:
        self.values: dict[str, str] = {}
        self.warnings: list[str] = []


def parse_mode(raw: object) -> str:
    """Normalise a mode value; ``-X accel`` with no value arrives as ``True``.

    Raises :class:`ConfigError` for anything that is not a mode.
    """
    if raw is True:
        return "on"
    if not isinstance(raw, str):
        raise ConfigError("mode must be a string, not %s" % type(raw).__name__)
    value = raw.strip().lower()
    value = _MODE_ALIASES.get(value, value)
    if value not in MODES:
        raise ConfigError("unknown mode %r (expected one of: %s)" % (raw, ", ".join(MODES)))
    return value


def looks_like_assert(raw: object) -> bool:
    """True for a value that was probably meant as ``assert`` (``asert``, ``asserts``...).

    Assert mode exists to stop a program that would run unaccelerated, so a
    typo of it must not silently degrade to running unpatched.
    """
    if not isinstance(raw, str):
        return False
    value = raw.strip().lower()
    return value.startswith("assert") or _edit_distance(value, "assert") <= 2


def _edit_distance(a: str, b: str) -> int:
    previous = list(range(len(b) + 1))
    for i, char_a in enumerate(a, 1):
        current = [i]
        for j, char_b in enumerate(b, 1):
            current.append(
                min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (char_a != char_b))
            )
        previous = current
    return previous[-1]


def read_conf_file(path: str) -> ConfFile:
    """Read ``key = value`` lines; a damaged file gives warnings, never an exception."""
    conf = ConfFile()
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except FileNotFoundError:
        return conf
    except (OSError, UnicodeDecodeError) as exc:
        conf.warnings.append("cannot read %s (%s); ignoring it" % (path, type(exc).__name__))
        return conf
    known = {s.conf_key for s in SETTINGS if s.conf_key}
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        key, sep, value = line.partition("=")
        key = key.strip()
        if not sep or key not in known:
            conf.warnings.append(
                "%s line %d is not a known 'key = value'; ignoring it" % (path, number)
            )
            continue
        conf.values[key] = value.strip()
    return conf


def write_conf_file(path: str, values: dict[str, str]) -> None:
    """Write the default file atomically (a half-written file must never be read)."""
    lines = ["# written by `accel-agent enable`; remove with `accel-agent disable`"]
    lines += ["%s = %s" % (key, value) for key, value in sorted(values.items())]
    temporary = "%s.%d.tmp" % (path, os.getpid())
    try:
        with open(temporary, "w", encoding="utf-8") as handle:
            handle.write("\n".join(lines) + "\n")
        os.replace(temporary, path)
    except OSError:
        try:
            os.remove(temporary)  # never leave a half-written file behind
        except OSError:
            pass
        raise


def choose_mode(xoption: object, env_value: str | None, conf: ConfFile) -> ModeChoice:
    """Apply the precedence -X > ACCEL_AGENT > default file > built-in default."""
    candidates = (
        ("-X accel", xoption),
        (ENV_MODE, env_value),
        ("default file", conf.values.get("mode")),
    )
    for source, raw in candidates:
        if raw is None:
            continue
        try:
            return ModeChoice(parse_mode(raw), source)
        except ConfigError as exc:
            fatal = looks_like_assert(raw)
            consequence = "refusing to run" if fatal else "running without the agent"
            return ModeChoice("off", source, "%s: %s; %s" % (source, exc, consequence), fatal)
    return ModeChoice(DEFAULT_MODE, "built-in default")


def parse_exclusions(*raw_values: str | None) -> frozenset[str]:
    """Union of comma-separated exclusion lists, lower-cased, blanks dropped."""
    names: set[str] = set()
    for raw in raw_values:
        if raw:
            names.update(part.strip().lower() for part in raw.split(","))
    names.discard("")
    return frozenset(names)


def exclusions_from_environment(conf: ConfFile | None = None) -> frozenset[str]:
    conf_value = conf.values.get("exclude") if conf else None
    return parse_exclusions(os.environ.get(ENV_EXCLUDE), conf_value)


# What activation read (the variable and the default file), for the registry,
# which loads later: only when a patched module is first imported.
_chosen_exclusions: frozenset[str] | None = None


def choose_exclusions(conf: ConfFile | None) -> frozenset[str]:
    """Read the exclusions of the variable and ``conf`` once, for :func:`exclusions`."""
    global _chosen_exclusions
    _chosen_exclusions = exclusions_from_environment(conf)
    return _chosen_exclusions


def exclusions() -> frozenset[str]:
    """The exclusions activation chose, or the variable's when it did not run."""
    if _chosen_exclusions is not None:
        return _chosen_exclusions
    return exclusions_from_environment()


def _on_off_choice(
    candidates: tuple[tuple[str, str | None], ...], if_unknown: bool, meaning: str
) -> tuple[bool, str | None]:
    """(the first on/off value set among ``candidates``, a problem to report).

    ``candidates`` are (source, raw value) in precedence order; unset or
    blank values are skipped, and the spellings modes take (1/0, yes/no,
    true/false) count. A value that is neither on nor off stops the search
    with ``if_unknown`` and a problem line ending in ``meaning``. Nothing
    set: on.
    """
    for source, raw in candidates:
        if raw is None or not raw.strip():
            continue
        value = raw.strip().lower()
        value = _MODE_ALIASES.get(value, value)
        if value not in ("on", "off"):
            return if_unknown, "%s: %r is neither on nor off; %s" % (source, raw, meaning)
        return value == "on", None
    return True, None


def key_reuse_choice(conf: ConfFile | None = None) -> tuple[bool, str | None]:
    """(whether AEAD key reuse is on, a problem to report): the variable wins over the file.

    A value that is neither on nor off turns it off: of the two readings of
    a typo, keeping no key is the one that cannot surprise a careful user.
    """
    candidates = (
        (ENV_KEY_REUSE, os.environ.get(ENV_KEY_REUSE)),
        ("default file", conf.values.get("key_reuse") if conf else None),
    )
    return _on_off_choice(candidates, False, "key reuse is off")


def key_reuse_from_environment(conf: ConfFile | None = None) -> bool:
    return key_reuse_choice(conf)[0]


# What activation read, for the providers, which load at a primitive's first use.
_chosen_key_reuse: bool | None = None


def choose_key_reuse(conf: ConfFile | None) -> tuple[bool, str | None]:
    """:func:`key_reuse_choice`, kept for :func:`key_reuse`."""
    global _chosen_key_reuse
    value, problem = key_reuse_choice(conf)
    _chosen_key_reuse = value
    return value, problem


def key_reuse() -> bool:
    """The key reuse setting activation chose, or the variable's when it did not run."""
    if _chosen_key_reuse is not None:
        return _chosen_key_reuse
    return key_reuse_from_environment()


def speedups_choice() -> tuple[bool, str | None]:
    """(whether the compiled fast path may be used, a problem to report).

    A value that is neither on nor off keeps the default (on): the setting
    changes speed, never results.
    """
    candidates = ((ENV_SPEEDUPS, os.environ.get(ENV_SPEEDUPS)),)
    return _on_off_choice(candidates, True, "the compiled fast path is used")


def xoption_value() -> object:
    return sys._xoptions.get(XOPTION)


def shadow_rate_choice() -> tuple[float, str | None]:
    """(the share of work shadow mode redoes natively, a problem to report).

    A value that is not a number from 0 to 1 keeps the default: a typo
    should neither switch the comparison off nor redo every call.
    """
    raw = os.environ.get(ENV_SHADOW_RATE)
    if raw is None or not raw.strip():
        return DEFAULT_SHADOW_RATE, None
    try:
        rate = float(raw)
    except ValueError:
        rate = -1.0
    if not 0.0 <= rate <= 1.0:  # NaN fails both comparisons too
        return DEFAULT_SHADOW_RATE, "%s: %r is not a fraction from 0 to 1; using %s" % (
            ENV_SHADOW_RATE,
            raw,
            DEFAULT_SHADOW_RATE,
        )
    return rate, None


def shadow_seed_choice() -> tuple[int | None, str | None]:
    """(the seed of shadow mode's sampling draws or None, a problem to report)."""
    raw = os.environ.get(ENV_SHADOW_SEED)
    if raw is None or not raw.strip():
        return None, None
    try:
        return int(raw), None
    except ValueError:
        return None, "%s: %r is not an integer; sampling unseeded" % (ENV_SHADOW_SEED, raw)


def shadow_requested() -> bool:
    """Whether ``-X accel`` or ``ACCEL_AGENT`` asks for shadow mode."""
    raw = sys._xoptions.get(XOPTION, os.environ.get(ENV_MODE))
    return isinstance(raw, str) and raw.strip().lower() == "shadow"


def report_path() -> str | None:
    """Where the savings report goes (``ACCEL_AGENT_REPORT``), or None when it is off."""
    raw = os.environ.get(ENV_REPORT)
    if raw is None or not raw.strip():
        return None
    return raw.strip()
