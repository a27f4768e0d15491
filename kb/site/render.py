"""Assemble the Sphinx source tree: hand-written pages plus pages rendered from kb.db.

site/pages/ is copied as is; site/templates/rst/*.rst.j2 are rendered with the data
from kb.site.data. A file is only rewritten when its content changed, because Sphinx
decides what to re-read from modification times: rewriting every page on every build
would turn each incremental build into a full one.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import jinja2

from .. import paths
from .. import releases as releases_mod
from ..catalogue import tag_label
from ..devset import STAGE_GROUP_ORDER
from . import rst
from .data import SiteData, release_changes


def site_dir() -> Path:
    return paths.root() / "site"


@dataclass
class RenderReport:
    written: list[str] = field(default_factory=list)
    unchanged: int = 0
    removed: list[str] = field(default_factory=list)

    @property
    def pages(self) -> int:
        return len(self.written) + self.unchanged


def environment(templates: Path | None = None) -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(templates or site_dir() / "templates" / "rst")),
        undefined=jinja2.StrictUndefined,  # a misspelt field must fail the build, not render empty
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,  # the output is reStructuredText, escaped by kb.site.rst
    )
    env.filters.update(
        inline=rst.inline,
        prose=rst.prose,
        lit=rst.literal,
        heading=rst.heading,
        slug=tag_label,  # only tags are slugged
    )
    return env


def pages(data: SiteData, env: jinja2.Environment, pages_dir: Path | None = None) -> dict[str, str]:
    """Every source file of the site: relative path -> content."""
    pages_dir = pages_dir or site_dir() / "pages"
    out = {str(p.relative_to(pages_dir)): p.read_text(encoding="utf-8")
           for p in sorted(pages_dir.rglob("*.rst"))}
    out["entries/index.rst"] = env.get_template("entries-index.rst.j2").render(data=data)
    entry = env.get_template("entry.rst.j2")
    for e in data.entries:
        out[f"entries/{e.id}.rst"] = entry.render(e=e)
    out["browse/exporters.rst"] = env.get_template("by-exporter.rst.j2").render(data=data)
    out["browse/tags.rst"] = env.get_template("by-tag.rst.j2").render(data=data)
    out["browse/stages.rst"] = env.get_template("by-stage.rst.j2").render(data=data)
    out["corpus/index.rst"] = env.get_template("corpus.rst.j2").render(data=data)
    out["accuracy/index.rst"] = env.get_template("accuracy.rst.j2").render(
        acc=accuracy(), pct=_pct, stage_groups=STAGE_GROUP_ORDER)
    out["compat/index.rst"] = env.get_template("compat.rst.j2").render(grids=data.compat)
    out["graph-breaks/index.rst"] = env.get_template("graph-breaks.rst.j2").render(data=data)
    out["corpus/releases.rst"] = env.get_template("corpus-releases.rst.j2").render(
        data=data, chart=releases_mod.chart_svg(data.releases.rates) if data.releases else "")
    changes = release_changes(data.entries, sweep_companions())
    out["releases/index.rst"] = env.get_template("releases-index.rst.j2").render(changes=changes)
    release = env.get_template("release.rst.j2")
    for c in changes:
        out[f"releases/{c.torch}.rst"] = release.render(c=c)
    return out


def accuracy() -> dict | None:
    """The search evaluation that `python -m kb.evaluate --write` committed, if any."""
    path = paths.root() / "devset" / "evaluation.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else None


def sweep_companions() -> dict:
    """The companion libraries of each swept release's venv, as `exportkb sweep` recorded them."""
    path = paths.observations_dir() / "sweep-companions.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}%"


def write_tree(files: dict[str, str], out: Path) -> RenderReport:
    """Write `files` under `out`, touching only what changed; delete sources that are gone."""
    report = RenderReport()
    out.mkdir(parents=True, exist_ok=True)
    for rel, text in files.items():
        target = out / rel
        if target.is_file() and target.read_text(encoding="utf-8") == text:
            report.unchanged += 1
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(f".{target.name}.tmp")
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(target)
        report.written.append(rel)
    for old in sorted(out.rglob("*.rst")):
        rel = str(old.relative_to(out))
        if rel not in files:  # e.g. an entry that was removed from the catalogue
            old.unlink()
            report.removed.append(rel)
    return report


def render(data: SiteData, out: Path | None = None) -> RenderReport:
    return write_tree(pages(data, environment()), out or site_dir() / "generated")
