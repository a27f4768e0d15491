"""The corpus across torch releases: pass rates per exporter and release, and what changed.

The runs come from `exportkb collect --torch VERSION [--ray]` over the sample in
collectors/release_sample.txt, stored in observations/releases/ (the pinned release's
results for the same models come from its own corpus run). A run still under way lives in
observations/releases/in-progress/, which kb.build does not read: one partial release
would shrink the models that every release ran, and with them the whole comparison.
kb.build classifies every failure with the one rule (kb.classify) and stores the runs
here as `release_runs`; this module turns them into:

* `release_rates`: per exporter and release, how many of the compared models exported;
* `release_changes`: a model and exporter that started or stopped failing between two
  consecutive releases, with the entry that explains the failing side.

A fair comparison holds the models fixed: a model counts for an exporter only where
every compared release built it and attempted that exporter (a release whose
transformers lacks a model type cannot run it; a model that did not build there is not
the exporter's failure). The chart draws those rates; the counts say how many models
each holds.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from html import escape

from .catalogue import EXPORTERS
from .version_status import release_key, release_of

RUNS_SQL = ("select source, model, exporter, torch, outcome, stage, exc_type, message, matched_entry "
            "from release_runs")


@dataclass
class ReleaseRate:
    exporter: str
    torch: str
    models: int  # compared models this release attempted with this exporter
    ok: int

    @property
    def rate(self) -> float:
        return self.ok / self.models if self.models else 0.0


@dataclass
class ReleaseChange:
    source: str
    model: str
    exporter: str
    before: str  # release
    after: str
    before_outcome: str
    after_outcome: str
    entry: str | None  # the entry that explains the failing side, if one does
    error: str  # the failing side's first line

    @property
    def direction(self) -> str:
        return "fixed" if self.after_outcome == "ok" else "broke"


def run_row(rec: dict, matched_entry: str | None) -> dict:
    """One `release_runs` row from an observation record and its classification."""
    return {"key": rec["key"], "source": rec["source"], "model": rec["model"], "exporter": rec["exporter"],
            "torch": release_of((rec.get("versions") or {}).get("torch")), "outcome": rec["outcome"],
            "stage": rec.get("stage"), "exc_type": rec.get("exc_type"), "message": rec.get("message"),
            "matched_entry": matched_entry}


def compared(rows) -> tuple[list[str], dict[tuple[str, str, str], dict[str, dict]]]:
    """The releases (oldest first) and, per (source, model, exporter) that every release
    on that exporter's line attempted after building the model, its row on each of them.

    A skipped attempt was not run: the model declares nothing for that exporter (no
    dynamic dims), or the release lacks what the corpus declares with (torch 2.4 has no
    Dim.DYNAMIC, so it skips export-dynamic for every model that other releases run it on).
    A release that skipped an exporter on more of the models that other releases ran it on
    than it ran itself leaves that exporter's line, so that what it could not run does not
    shrink the others' models to the few it ran; otherwise only the models it skipped drop
    out of the line."""
    cells: dict[tuple[str, str, str], dict[str, dict]] = defaultdict(dict)
    releases: set[str] = set()
    ran: dict[str, dict[str, set]] = defaultdict(lambda: defaultdict(set))  # exporter -> release -> models
    skipped: dict[str, dict[str, set]] = defaultdict(lambda: defaultdict(set))
    for r in rows:
        if r["exporter"] == "build" or not r["torch"]:
            continue
        releases.add(r["torch"])
        model = (r["source"], r["model"])
        if r["outcome"] == "skip":
            skipped[r["exporter"]][r["torch"]].add(model)
            continue
        ran[r["exporter"]][r["torch"]].add(model)
        cells[(r["source"], r["model"], r["exporter"])][r["torch"]] = dict(r)
    line: dict[str, set[str]] = {}
    for exporter, by_release in ran.items():
        line[exporter] = {
            t for t, models in by_release.items()
            if len(skipped[exporter][t] & set().union(*(m for o, m in by_release.items() if o != t))) <= len(models)}
    order = sorted(releases, key=release_key)
    complete = {k: {t: r for t, r in v.items() if t in line[k[2]]}
                for k, v in cells.items() if line[k[2]] and line[k[2]] <= set(v)}
    return order, complete


def rates(rows) -> list[ReleaseRate]:
    order, cells = compared(rows)
    out: dict[tuple[str, str], ReleaseRate] = {}
    for (_source, _model, exporter), per in cells.items():
        for torch, r in per.items():
            rate = out.setdefault((exporter, torch), ReleaseRate(exporter, torch, 0, 0))
            rate.models += 1
            rate.ok += r["outcome"] == "ok"
    rank = {x: i for i, x in enumerate(EXPORTERS)}
    return sorted(out.values(), key=lambda x: (rank.get(x.exporter, 99), x.exporter, release_key(x.torch)))


def _first_line(r: dict) -> str:
    first = next((ln.strip() for ln in (r.get("message") or "").splitlines() if ln.strip()), "")
    return (f"{r['exc_type']}: {first}" if r.get("exc_type") else (first or r["outcome"]))[:240]


def changes(rows) -> list[ReleaseChange]:
    """Models and exporters whose ok-ness differs between consecutive compared releases."""
    order, cells = compared(rows)
    found = []
    for (source, model, exporter), per in sorted(cells.items()):
        ran = [t for t in order if t in per]  # the releases that ran this exporter
        for before, after in zip(ran, ran[1:]):
            a, b = per[before], per[after]
            if (a["outcome"] == "ok") == (b["outcome"] == "ok"):
                continue
            failing = b if a["outcome"] == "ok" else a
            found.append(ReleaseChange(source, model, exporter, before, after, a["outcome"], b["outcome"],
                                       failing.get("matched_entry"), _first_line(failing)))
    rank = {x: i for i, x in enumerate(EXPORTERS)}
    return sorted(found, key=lambda c: (release_key(c.before), rank.get(c.exporter, 99), c.direction, c.model))


def rate_rows(found: list[ReleaseRate]) -> list[dict]:
    return [{"exporter": r.exporter, "torch": r.torch, "models": r.models, "ok": r.ok,
             "pass_rate": round(100 * r.rate, 1)} for r in found]


def change_rows(found: list[ReleaseChange]) -> list[dict]:
    return [{"source": c.source, "model": c.model, "exporter": c.exporter, "before": c.before, "after": c.after,
             "direction": c.direction, "before_outcome": c.before_outcome, "after_outcome": c.after_outcome,
             "entry": c.entry, "error": c.error} for c in found]


# Nine exporters, nine colours that stay apart for the common colour-vision deficiencies
# (Okabe-Ito, plus two greys), and a dash pattern as a second cue.
_COLOURS = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#000000", "#F0E442", "#999999"]
_DASHES = ["", "6 3", "2 3", "", "6 3", "2 3", "", "6 3", "2 3"]


def chart_svg(found: list[ReleaseRate]) -> str:
    """A line per exporter: the share of compared models that exported, per release.

    Plain SVG, no script and nothing fetched, so the docs (offline, in three languages)
    and the UI draw the same chart. Only ids and numbers appear in it: the caption that
    explains it is prose around it, translated with the page. Text takes the site's
    `kb-chart-label` class so it follows the theme's light and dark modes."""
    releases = sorted({r.torch for r in found}, key=release_key)
    exporters = list(dict.fromkeys(r.exporter for r in found))
    if not releases:
        return ""
    width, height, left, top, bottom, legend = 720, 320, 48, 12, 30, 150
    plot_w, plot_h = width - left - legend - 24, height - top - bottom
    step = plot_w / max(1, len(releases) - 1)

    def x(i: int) -> float:
        return left + (i * step if len(releases) > 1 else plot_w / 2)

    def y(rate: float) -> float:
        return top + plot_h * (1 - rate)

    by = {(r.exporter, r.torch): r for r in found}
    label = "; ".join(f"{r.exporter} {r.torch} {round(100 * r.rate)}%" for r in found)
    parts = [f'<svg class="kb-chart kb-release-chart" xmlns="http://www.w3.org/2000/svg" width="{width}" '
             f'height="{height}" viewBox="0 0 {width} {height}" role="img" aria-label="{escape(label)}">']
    for pct in range(0, 101, 25):
        yy = y(pct / 100)
        parts.append(f'<line x1="{left}" x2="{left + plot_w}" y1="{yy:.1f}" y2="{yy:.1f}" stroke="#8884"/>'
                     f'<text class="kb-chart-label" x="{left - 6}" y="{yy + 4:.1f}" font-size="11" '
                     f'text-anchor="end">{pct}%</text>')
    for i, rel in enumerate(releases):
        parts.append(f'<text class="kb-chart-label" x="{x(i):.1f}" y="{top + plot_h + 20}" font-size="12" '
                     f'text-anchor="middle">{escape(rel)}</text>')
    for n, exporter in enumerate(exporters):
        colour, dash = _COLOURS[n % len(_COLOURS)], _DASHES[n % len(_DASHES)]
        dashed = f' stroke-dasharray="{dash}"' if dash else ""
        points = [(x(i), y(by[(exporter, rel)].rate), by[(exporter, rel)]) for i, rel in enumerate(releases)
                  if (exporter, rel) in by]
        if len(points) > 1:
            path = " ".join(f"{px:.1f},{py:.1f}" for px, py, _ in points)
            parts.append(f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2"{dashed}/>')
        for px, py, r in points:
            parts.append(f'<circle cx="{px:.1f}" cy="{py:.1f}" r="3.5" fill="{colour}">'
                         f'<title>{escape(exporter)} {escape(r.torch)}: {r.ok}/{r.models}</title></circle>')
        ly, lx = top + 10 + n * 20, width - legend
        parts.append(f'<line x1="{lx}" x2="{lx + 24}" y1="{ly}" y2="{ly}" stroke="{colour}" stroke-width="2"{dashed}/>'
                     f'<text class="kb-chart-label" x="{lx + 30}" y="{ly + 4}" font-size="12">{escape(exporter)}</text>')
    parts.append("</svg>")
    return "".join(parts)
