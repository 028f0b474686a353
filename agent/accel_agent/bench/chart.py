"""The PNG chart: speed-up over native pycryptodome per row and size, log scale.

One line per measured (row, size), grouped by family in shaded bands; on
it a filled dot for the agent (native time / agent time) and a hollow
diamond for direct pyca/cryptography (native time / direct time, the
ceiling the agent aims at); with ``--aesni-ab``, a cross for direct
cryptography with AES-NI masked. A line at 1x marks native speed: a dot
right of it is faster. The machine and the method are the footer, so a
chart read on its own says where it was measured.

matplotlib is optional (``pip install 'accel-agent[chart]'``): without it
:func:`draw` raises :class:`ChartUnavailable` and the command writes the
CSV and the table only. The figure is drawn with matplotlib's object API
and the Agg canvas (no pyplot, no GUI backend, no global state).
"""

from __future__ import annotations

import os
import textwrap

from accel_agent.bench.families import size_label

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

INSTALL_HINT = "pip install 'accel-agent[chart]'"
ROW_INCHES = 0.2  # height of one line of the chart
WIDTH_INCHES = 10.0  # per column
SINGLE_COLUMN_MAX = 70  # more rows than this: two columns
AGENT_COLOR = "#1f5fa8"
DIRECT_COLOR = "#6b6b6b"
MASKED_COLOR = "#c0392b"
BAND_COLORS = ("#f2f2f2", "#ffffff")


class ChartUnavailable(Exception):
    """No chart can be drawn here (matplotlib missing); the message says how to get one."""


def _matplotlib():
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
        from matplotlib.ticker import FuncFormatter, LogLocator
    except ImportError as exc:
        if exc.name == "matplotlib":
            problem = "matplotlib is not installed"
        else:
            problem = "matplotlib cannot be imported (%s)" % exc
        raise ChartUnavailable("%s; for the chart: %s" % (problem, INSTALL_HINT)) from exc
    return Figure, FigureCanvasAgg, FuncFormatter, LogLocator


def _ratio_label(value: float, _position: object = None) -> str:
    if value >= 1:
        return "%gx" % value
    return "%.2gx" % value


def split_columns(rows: Sequence[dict], max_single: int = SINGLE_COLUMN_MAX) -> list[list[dict]]:
    """The rows in one column, or in two split between families, as even as the families allow."""
    if len(rows) <= max_single:
        return [list(rows)]
    boundaries = [i for i in range(1, len(rows)) if rows[i]["family"] != rows[i - 1]["family"]]
    if not boundaries:
        return [list(rows)]
    split = min(boundaries, key=lambda i: max(i, len(rows) - i))
    return [list(rows[:split]), list(rows[split:])]


def draw(doc: dict, path: str, footer: str, masked: dict | None = None) -> str:
    """Draw ``doc``'s rows into the PNG ``path``; returns ``path``.

    ``footer``: the machine and method, printed under the plot.
    ``masked``: --aesni-ab's child document, whose AES rows add a third marker.
    A long run is drawn in two columns, split between families.
    """
    Figure, FigureCanvasAgg, FuncFormatter, LogLocator = _matplotlib()
    rows = doc["rows"]
    if not rows:
        raise ValueError("no rows to draw")
    masked_by_key = {(r["row"], r["size"]): r for r in (masked or {}).get("rows", ())}
    columns = split_columns(rows)
    width = WIDTH_INCHES * len(columns)

    footer_lines = textwrap.wrap(footer, int(15 * width))
    # Fixed heights in inches: title, legend and the upper tick labels above
    # the plot; the axis label and the footer below it.
    header, below = 1.05, 0.6 + 0.13 * len(footer_lines)
    longest = max(len(column) for column in columns)
    height = ROW_INCHES * longest + header + below
    figure = Figure(figsize=(width, height), dpi=100)
    FigureCanvasAgg(figure)
    top = 1 - header / height

    # One x range for every column, so positions compare across them.
    values = [1.0]
    for r in rows:
        values += [v for v in (r["speedup"], r["direct_speedup"]) if v == v]  # NaN: no direct
        values += list(r.get("speedup_by_clock", {}).values())
        other = masked_by_key.get((r["row"], r["size"]))
        if r["family"] == "aes" and other is not None:
            values.append(other["direct_speedup"])
    limits = (min(values) / 1.5, max(values) * 1.5)

    legend: dict[str, object] = {}  # label -> handle, from every column (crosses: AES only)
    for index, column in enumerate(columns):
        # Label room on the left (2.5 in), the family names on the right
        # (1.2 in: "python_ecdsa" in bold).
        left = (index * WIDTH_INCHES + 2.5) / width
        span = (WIDTH_INCHES - 3.7) / width
        plot_height = ROW_INCHES * len(column) / height
        axes = figure.add_axes((left, top - plot_height, span, plot_height))
        _plot_column(axes, column, doc["families"], masked_by_key)
        axes.set_xscale("log")
        axes.set_xlim(*limits)
        axes.xaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
        axes.xaxis.set_major_formatter(FuncFormatter(_ratio_label))
        axes.xaxis.set_minor_formatter(FuncFormatter(lambda *_: ""))
        axes.tick_params(axis="x", labelsize=8, labeltop=True, top=True)
        axes.set_xlabel(
            "speed-up over the library's own code (native time / time; log scale; >1x is faster)",
            fontsize=9,
        )
        for handle, label in zip(*axes.get_legend_handles_labels()):
            legend.setdefault(label, handle)
    figure.legend(
        list(legend.values()),
        list(legend),
        loc="center",
        bbox_to_anchor=(0.5, 1 - 0.55 / height),
        ncol=3,
        fontsize=8,
        frameon=False,
    )
    figure.suptitle(
        "accel-agent bench: pycryptodome (and other libraries) under the agent vs native",
        fontsize=12,
        y=1 - 0.1 / height,
        va="top",
    )
    figure.text(0.01, 0.08 / height, "\n".join(footer_lines), fontsize=7, va="bottom", ha="left")
    directory = os.path.dirname(path)
    if directory:
        os.makedirs(directory, exist_ok=True)
    figure.savefig(path, format="png")
    return path


def _row_label(row: dict) -> str:
    """A row's label; an application row shows its measured share of time in crypto."""
    if "speedup_by_clock" not in row:
        return "%s  %s" % (row["row"], size_label(row["size"]))
    share = row.get("crypto_share", float("nan"))
    return row["row"] if share != share else "%s  (%.0f%% in crypto)" % (row["row"], 100 * share)


def _plot_family_bands(axes, rows: list[dict], families: Sequence[str]) -> None:
    """Alternating bands behind each family's rows, the family named on the right."""
    start = 0
    for index, row in enumerate([*rows, None]):
        if row is not None and row["family"] == rows[start]["family"]:
            continue
        family = rows[start]["family"]
        band = families.index(family) if family in families else 0
        axes.axhspan(start - 0.5, index - 0.5, color=BAND_COLORS[band % 2], zorder=0)
        axes.text(
            1.01,
            (start + index - 1) / 2,
            family,
            transform=axes.get_yaxis_transform(),
            va="center",
            ha="left",
            fontsize=10,
            fontweight="bold",
        )
        start = index


def _plot_column(axes, rows: list[dict], families: Sequence[str], masked_by_key: dict) -> None:
    """One column: family bands, the 1x line, the dots, diamonds and crosses, the labels."""
    positions = list(range(len(rows)))  # the first row at the top
    agent = [r["speedup"] for r in rows]
    direct = [r["direct_speedup"] for r in rows]
    _plot_family_bands(axes, rows, families)

    axes.axvline(1.0, color="black", linewidth=1.0, zorder=1)
    for y, a, d in zip(positions, agent, direct):
        d = a if d != d else d  # an application row has no direct variant (NaN)
        axes.plot([min(a, d), max(a, d)], [y, y], color="#c8c8c8", linewidth=1, zorder=2)
    # The markers, in the legend's order: (x, y) points and their style. An
    # empty series (no application rows, no masked run) draws nothing.
    series = (
        (
            [
                (r["speedup_by_clock"]["wall"], y)
                for y, r in zip(positions, rows)
                if "wall" in r.get("speedup_by_clock", {})
            ],
            {  # application rows: the speed-up on the other clock too
                "marker": "^",
                "s": 24,
                "facecolors": "none",
                "edgecolors": AGENT_COLOR,
                "label": "agent vs native, wall clock (applications)",
                "zorder": 3,
            },
        ),
        (
            list(zip(agent, positions)),
            {"marker": "o", "s": 26, "color": AGENT_COLOR, "label": "agent vs native", "zorder": 4},
        ),
        (
            list(zip(direct, positions)),
            {
                "marker": "D",
                "s": 22,
                "facecolors": "none",
                "edgecolors": DIRECT_COLOR,
                "label": "direct cryptography vs native (reference)",
                "zorder": 3,
            },
        ),
        (
            [
                (masked_by_key[(r["row"], r["size"])]["direct_speedup"], y)
                for y, r in zip(positions, rows)
                if r["family"] == "aes" and (r["row"], r["size"]) in masked_by_key
            ],
            {
                "marker": "x",
                "s": 26,
                "color": MASKED_COLOR,
                "label": "direct cryptography, AES-NI masked, vs native",
                "zorder": 3,
            },
        ),
    )
    for points, style in series:
        if points:
            axes.scatter([x for x, _ in points], [y for _, y in points], **style)
    axes.grid(axis="x", which="major", color="#d0d0d0", linewidth=0.6, zorder=1)
    axes.set_yticks(positions)
    axes.set_yticklabels([_row_label(r) for r in rows], fontsize=8)
    axes.set_ylim(len(rows) - 0.5, -0.5)
