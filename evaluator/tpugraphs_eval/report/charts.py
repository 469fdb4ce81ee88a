"""Inline SVG charts of the HTML report (:mod:`.html`): collection values against random and oracle, and a
histogram of per-graph Kendall's tau-b. Plain SVG elements only (no script, no external reference); every
text is HTML-escaped. Each chart scales to its container (``viewBox``, CSS ``width: 100%``)."""

from __future__ import annotations

import html
import math

import numpy as np

from ..scoring.references import References

BAR_WIDTH = 640
"""Width of the charts' coordinate system (the page scales them to fit)."""


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def reference_bar(name: str, value: float | None, references: References | None) -> str:
    """One collection's value as a bar from the random reference, with the oracle marked (SVG).

    The axis runs from the smaller of (random, value) to the larger of (oracle, value), padded by 5%;
    the bar goes from ``random`` to ``value`` (green above chance, red below). Without references the
    bar starts at the axis' left end. ``value`` None (undefined everywhere) draws the axis only.
    """
    label_w, plot_w, height = 180, BAR_WIDTH - 180 - 20, 46
    points = [v for v in (value, references.random if references else None,
                          references.oracle if references else None) if v is not None] or [0.0, 1.0]
    lo, hi = min(points), max(points)
    pad = (hi - lo) * 0.05 or 0.05
    lo, hi = lo - pad, hi + pad

    def x(v: float) -> float:
        return round(label_w + (v - lo) / (hi - lo) * plot_w, 2)

    title = f"{name}: {'undefined' if value is None else f'{value:.4f}'}"
    if references:
        title += f" (random {references.random:.4f}, oracle {references.oracle:.4f})"
    parts = [f'<text x="{label_w - 8}" y="22" text-anchor="end" class="label">{_e(name)}</text>',
             f'<rect x="{label_w}" y="12" width="{plot_w}" height="14" fill="#eef0f3"/>']
    start = references.random if references else lo
    if value is not None:
        left, right = sorted((x(start), x(value)))
        color = "#2f8f4e" if value >= start else "#c0392b"
        parts.append(f'<rect class="bar" x="{left}" y="12" width="{max(right - left, 1.0)}" height="14" '
                     f'fill="{color}"/>')
    if references:
        for key, v, anchor in (("random", references.random, "end"), ("oracle", references.oracle, "start")):
            parts.append(f'<line x1="{x(v)}" y1="6" x2="{x(v)}" y2="32" stroke="#1b1f24" stroke-dasharray="3 2"/>'
                         f'<text x="{x(v)}" y="43" text-anchor="middle" class="tick">{key} {v:.3f}</text>')
    if value is not None:
        parts.append(f'<text x="{x(value)}" y="9" text-anchor="middle" class="tick">{value:.4f}</text>')
    return _svg(title, height, parts)


def tau_histogram(name: str, taus: np.ndarray, bins: int = 20) -> str:
    """Histogram (SVG) of a layout collection's per-graph tau-b over [-1, 1] in ``bins`` equal bins.

    Args:
        taus: (G,) per-graph tau-b; NaN (undefined) values are not drawn but counted in the caption.
    """
    defined = taus[~np.isnan(taus)]
    counts, edges = np.histogram(defined, bins=bins, range=(-1.0, 1.0))
    left, bottom, plot_w, plot_h = 36, 130, BAR_WIDTH - 56, 110
    top = max(int(counts.max()) if counts.size else 0, 1)
    title = (f"{name}: Kendall's tau-b of {defined.size} graphs"
             + (f" ({taus.size - defined.size} undefined, not drawn)" if defined.size < taus.size else ""))
    parts = [f'<line x1="{left}" y1="{bottom}" x2="{left + plot_w}" y2="{bottom}" stroke="#888"/>']
    step = plot_w / bins
    for i, count in enumerate(counts.tolist()):
        h = round(plot_h * count / top, 2)
        x = round(left + i * step, 2)
        parts.append(f'<rect class="bin" x="{x + 1}" y="{bottom - h}" width="{round(step - 2, 2)}" height="{h}" '
                     f'fill="#2a7de1"><title>[{edges[i]:.1f}, {edges[i + 1]:.1f}): {count} graph(s)</title></rect>')
        if count:
            parts.append(f'<text x="{round(x + step / 2, 2)}" y="{bottom - h - 3}" text-anchor="middle" '
                         f'class="tick">{count}</text>')
    for tick in (-1.0, -0.5, 0.0, 0.5, 1.0):
        x = round(left + (tick + 1) / 2 * plot_w, 2)
        parts.append(f'<text x="{x}" y="{bottom + 16}" text-anchor="middle" class="tick">{tick:g}</text>')
    parts.append(f'<text x="{left - 6}" y="{bottom - plot_h + 4}" text-anchor="end" class="tick">{top}</text>')
    return _svg(title, bottom + 26, parts)


def _svg(title: str, height: int, body: list[str]) -> str:
    return (f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" viewBox="0 0 {BAR_WIDTH} {height}" role="img" '
            f'aria-label="{_e(title)}"><title>{_e(title)}</title>' + "".join(body) + "</svg>")


def ceiling_scatter(name: str, values: np.ndarray, ceilings: np.ndarray) -> str:
    """Each graph's value (y) against its noise ceiling (x), both (G,), with the diagonal value = ceiling (SVG);
    graphs without a ceiling or a value (NaN) are not drawn."""
    keep = ~(np.isnan(values) | np.isnan(ceilings))
    points = np.concatenate([values[keep], ceilings[keep], [0.0, 1.0]])
    lo, hi, size, left = float(points.min()), float(points.max()), 200, 40

    def at(v: float) -> float:
        return round((v - lo) / ((hi - lo) or 1.0) * size, 2)

    body = [f'<line x1="{left}" y1="{size + 10}" x2="{left + size}" y2="10" stroke="#888" stroke-dasharray="3 2"/>',
            f'<text x="{left + size + 8}" y="{size + 10}" class="tick">x: ceiling, y: value; {lo:.2f} to {hi:.2f}'
            "</text>"]
    body += [f'<circle cx="{left + at(c)}" cy="{size + 10 - at(v)}" r="3" fill="#2a7de1"><title>value {v:.4f}, '
             f"ceiling {c:.4f}</title></circle>" for v, c in zip(values[keep].tolist(), ceilings[keep].tolist())]
    return _svg(f"{name}: {int(keep.sum())} graphs' values against their noise ceilings", size + 20, body)


def curve_chart(name: str, curve: np.ndarray, random: np.ndarray) -> str:
    """A collection's mean search curve (blue) and a random ranking's (grey dashed) over k = 1..K (SVG): the
    best runtime measured in the first k configurations ranked, over the best."""
    top = float(np.nanmax(np.concatenate([curve, random, [1.0001]])))
    left, width, height = 40, BAR_WIDTH - 60, 140

    def line(c: np.ndarray, style: str) -> str:
        xy = " ".join(f"{round(left + i / max(c.size - 1, 1) * width, 2)},{round(10 + (top - v) / (top - 1) * height, 2)}"
                      for i, v in enumerate(c.tolist()) if not math.isnan(v))
        return f'<polyline points="{xy}" fill="none" {style}/>'

    body = [line(random, 'stroke="#888" stroke-dasharray="4 3"'), line(curve, 'stroke="#2a7de1" stroke-width="2"'),
            f'<text x="{left - 4}" y="16" text-anchor="end" class="tick">{top:.3g}</text>',
            f'<text x="{left - 4}" y="{height + 10}" text-anchor="end" class="tick">1</text>',
            f'<text x="{left + width}" y="{height + 26}" text-anchor="end" class="tick">k = {curve.size}</text>']
    return _svg(f"{name}: mean search curve (blue) and a random ranking's (dashed), k = 1..{curve.size}",
                height + 32, body)
