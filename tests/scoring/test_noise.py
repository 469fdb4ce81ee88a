"""Measurement noise and the search curve (docs/metrics.md, "Measurement noise", "Search curve")."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from tpugraphs_eval.errors import DataError
from tpugraphs_eval.scoring.curve import configs_within, random_curve
from tpugraphs_eval.scoring.metrics import search_curves
from tpugraphs_eval.scoring.noise import duplicate_groups, noise_ceiling, noise_estimate, pooled
from tpugraphs_eval.truth.rowhash import feature_row_hashes


def _layout_npz(path: Path, features: np.ndarray, runtimes: np.ndarray) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez(path, node_feat=np.zeros((2, 140), np.float32), node_opcode=np.zeros(2, np.uint8),
             edge_index=np.zeros((1, 2), np.int64), node_config_feat=features, node_config_ids=np.arange(2),
             node_splits=np.zeros((1, 1), np.int64), config_runtime=runtimes.astype(np.int64))
    return path


def test_hand_made_graph_gives_the_analytic_sd(tmp_path):
    # configs 0 and 3 share a feature row (runtimes 100, 102), configs 1, 4, 5 another (200, 200, 203); 2 is alone
    features = np.arange(6 * 2 * 18, dtype=np.float32).reshape(6, 2, 18)
    features[3], features[4], features[5] = features[0], features[1], features[1]
    runtimes = np.array([100, 200, 50, 102, 200, 203])
    labels = duplicate_groups(feature_row_hashes(_layout_npz(tmp_path / "g.npz", features, runtimes),
                                                 "node_config_feat"))
    assert labels.tolist() == [0, 1, -1, 0, 1, 1]
    estimate = noise_estimate(runtimes, labels)
    # by hand: group means 101 and 201; squares 2 * (1/101)^2 and 2 * (1/201)^2 + (2/201)^2; dof 1 + 2
    sum_squares = 2 / 101**2 + 6 / 201**2
    assert estimate[:2] == (5, 2) and estimate.dof == 3
    assert estimate.sd == pytest.approx(math.sqrt(sum_squares / 3), rel=1e-12)
    assert pooled([estimate, noise_estimate(runtimes, np.full(6, -1))]).sd == estimate.sd
    assert noise_estimate(runtimes, np.full(6, -1)).sd is None  # no duplicates: no estimate


def test_feature_rows_are_read_in_blocks_and_bad_members_refused(tmp_path, monkeypatch):
    import tpugraphs_eval.truth.rowhash as rowhash

    features = np.random.default_rng(0).random((7, 3, 18)).astype(np.float32)
    features[6] = features[2]
    path = _layout_npz(tmp_path / "g.npz", features, np.arange(1, 8))
    monkeypatch.setattr(rowhash, "ROWS_PER_CHUNK", 3)  # three rows per chunk: three chunks
    assert duplicate_groups(feature_row_hashes(path, "node_config_feat")).tolist() == [-1, -1, 0, -1, -1, -1, 0]
    with pytest.raises(DataError, match="config_feat"):
        feature_row_hashes(path, "config_feat")  # a layout file has no tile features


def test_ceiling_of_noise_free_runtimes_is_the_oracle():
    y = np.array([5.0, 1.0, 3.0, 2.0, 4.0])
    ceiling = noise_ceiling(y, 0.0, "layout", draws=3)
    assert ceiling["kendall_tau"] == pytest.approx((1.0, 0.0)) and ceiling["opa"] == (1.0, 0.0)
    assert ceiling["slowdown1"] == (0.0, 0.0)
    assert noise_ceiling(y, 0.0, "tile", draws=2)["score"] == (1.0, 0.0)


def test_ceiling_falls_with_the_noise_and_two_measurements_agree_less():
    y = np.linspace(1000.0, 1010.0, 300)  # 1% range: a relative sd of 1e-3 reorders neighbours
    one = noise_ceiling(y, 1e-3, "layout")["kendall_tau"]
    two = noise_ceiling(y, 1e-3 * math.sqrt(2.0), "layout")["kendall_tau"]
    assert 0.0 < two[0] < one[0] < 1.0 and one[1] > 0.0


def test_configs_within_hand_worked():
    curve = search_curves(np.array([4.0, 2.0, 3.0, 1.0]), np.array([4]), np.array([1.0]), 5)[0]  # 4, 2, 2, 1, 1
    assert configs_within(curve, 0.01) == 4 and configs_within(np.array([1.2, 1.1]), 0.05) is None


def test_random_curve_hand_worked_and_against_monte_carlo():
    # c = 3, y = 1, 2, 4: E[min of 1] = 7/3, of 2 = (1 + 1 + 2) / 3 = 4/3, of 3 = 1 (by hand)
    assert random_curve(np.array([4, 1, 2]), 4) == pytest.approx([7 / 3, 4 / 3, 1.0, 1.0], rel=1e-15)
    rng = np.random.default_rng(1)
    y = rng.integers(1000, 2000, size=60).astype(np.float64)
    exact = random_curve(y, 20)
    draws = np.array([np.minimum.accumulate(y[rng.permutation(60)[:20]]) for _ in range(100_000)]) / y.min()
    standard_error = draws.std(axis=0) / math.sqrt(draws.shape[0])
    assert np.all(np.abs(draws.mean(axis=0) - exact) <= 3 * standard_error + 1e-12)


def test_real_unet_noise_and_ceiling(realdata):
    """docs/metrics.md's table: xla default valid unet_3d.4x4.bf16, relative sd 1.61e-5, noise ceiling 0.638 ± 0.006."""
    path = realdata / "tpugraphs/npz/layout/xla/default/valid/unet_3d.4x4.bf16.npz"
    runtimes = np.load(path)["config_runtime"]
    labels = duplicate_groups(feature_row_hashes(path, "node_config_feat"))
    estimate = noise_estimate(runtimes, labels)
    assert (estimate.duplicates, estimate.groups, estimate.dof) == (790, 294, 496)
    assert estimate.sd == pytest.approx(1.61e-5, rel=0.05)
    mean, spread = noise_ceiling(runtimes, estimate.sd, "layout")["kendall_tau"]
    assert abs(mean - 0.638) <= 0.03 and 0.002 < spread < 0.02


def test_feature_rows_of_a_large_member_are_hashed_in_bounded_memory(tmp_path):
    """A 256 MB member (np.savez streams the zero-stride view) hashed by a fresh process: its peak RSS (VmHWM of its
    own memory, which a fork does not inherit as ru_maxrss does) stays under 150 MB; reading it whole holds 256 MB."""
    import subprocess
    import sys

    if not Path("/proc/self/status").exists():
        pytest.skip("the peak RSS is read from /proc/self/status (Linux)")
    path = tmp_path / "big.npz"
    np.savez(path, node_config_feat=np.broadcast_to(np.float32(0), (256, 14564, 18)))
    code = ("import sys; from tpugraphs_eval.truth.rowhash import feature_row_hashes; "
            "assert len(set(feature_row_hashes(sys.argv[1], 'node_config_feat'))) == 1; "
            "print([l.split()[1] for l in open('/proc/self/status') if l.startswith('VmHWM')][0])")
    peak_kib = int(subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True,
                                  check=True).stdout)
    assert peak_kib / 1024 < 150


def test_official_protocol_ceiling_draws_once_per_config():
    """Sampled configs take the draw of their config: a permutation of all configs gives the all-configs tau-b, and
    a repeated index ties with itself (tau-b over 4 sampled values with one tied pair, as scipy counts it)."""
    y = np.linspace(100.0, 101.0, 50)
    everything = noise_ceiling(y, 1e-3, "layout")["kendall_tau"]
    assert noise_ceiling(y, 1e-3, "layout", sampled=np.arange(50)[::-1])["kendall_tau"] == pytest.approx(everything)
    repeated = noise_ceiling(np.array([1.0, 2.0, 3.0]), 0.0, "layout", sampled=np.array([0, 0, 1, 2]), draws=1)
    assert repeated["kendall_tau"][0] == pytest.approx(1.0)  # tied in both: tau-b 1 (scipy.stats.kendalltau)
