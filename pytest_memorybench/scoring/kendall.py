"""Kendall τ for chronological answers, in the two forms the benchmarks publish.

They differ and must not be mixed:
  * episodic (Huet et al.): τ over the items both lists share, from a judge's index alignment;
    the benchmark only counts it when every ground-truth item was found.
  * BEAM: τ-b over the union of both lists, items missing from one list tied at the bottom of
    it, normalised to [0, 1]; set precision / recall / F1 alongside.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from pytest_memorybench.core.f1 import harmonic_f1
from pytest_memorybench.core.heavy import heavy_import
from pytest_memorybench.core.records import Score
from pytest_memorybench.scoring.text import unique_in_order


def episodic_common_indexes(predicted_indexes: Sequence[int], n_ground_truth: int) -> list[int]:
    """The ground-truth indexes the prediction found, in predicted order, once each (-1 dropped).

    The benchmark's "exact match" is `len(...) == n_ground_truth`.
    """
    wanted = set(range(n_ground_truth))
    return [i for i in unique_in_order(predicted_indexes) if i != -1 and i in wanted]


def episodic_tau(predicted_indexes: Sequence[int], n_ground_truth: int) -> float | None:
    """Kendall τ between the predicted and the true order of the items both lists share.

    `predicted_indexes` is the judge's alignment: for each predicted item, the index of the
    ground-truth item it matches or -1.  As in `epbench` (ranking.py): -1s and repeats are
    dropped, only indexes common to both lists are kept, and `scipy.stats.kendalltau` (its
    default τ-b, equal to τ-a here since positions never tie) compares each common item's
    position in the two lists.  None when fewer than 2 items are common: no order to compare.
    """
    common = episodic_common_indexes(predicted_indexes, n_ground_truth)
    if len(common) < 2:
        return None
    true_positions = sorted(common)  # the ground truth lists its indexes in order
    tau = _kendalltau([true_positions.index(i) for i in common], list(range(len(common)))).statistic
    return float(tau)


def _ranks(sequence: Sequence[str], union: Sequence[str], tie_rank: int) -> list[int]:
    positions = {item: i + 1 for i, item in enumerate(sequence)}  # a repeat keeps its last position
    return [positions.get(item, tie_rank) for item in union]


def beam_ordering(reference: Sequence[str], system: Sequence[str]) -> dict[str, Any]:
    """BEAM event-ordering statistics for an already aligned system list.

    `system` is the reply's list after alignment: items the judge found equivalent to a
    reference item are replaced by that item's exact text (BEAM splits the reply into raw
    lines, blank ones included, and aligns them greedily).  Then, as BEAM's code does:
      * tp = |set(reference) ∩ set(system)|, fp = system entries not in the reference,
        fn = reference entries not in the system; precision, recall, F1 from those;
      * union = reference then system, in order, once each; each list ranks its items 1..n,
        and every union item missing from a list gets the tie rank |union| + 1;
      * tau_b = scipy kendalltau(ranks_ref, ranks_sys, variant="b"), tau_norm = (tau_b + 1) / 2,
        final_score = tau_norm × F1.
    BEAM leaves a NaN τ (for example when one list ranks everything equally) unguarded; here it
    becomes tau_b None, tau_norm 0 and final_score 0, with `note` saying why.
    """
    ref_set, sys_set = set(reference), set(system)
    tp = len(ref_set & sys_set)
    fp = sum(1 for item in system if item not in ref_set)
    fn = sum(1 for item in reference if item not in sys_set)
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = harmonic_f1(precision, recall)

    union = unique_in_order([*reference, *system])
    tie_rank = len(union) + 1
    ranks_ref = _ranks(reference, union, tie_rank)
    ranks_sys = _ranks(system, union, tie_rank)
    note = None
    if len(set(ranks_ref)) < 2 or len(set(ranks_sys)) < 2:
        tau_b = math.nan  # what scipy returns for a constant input, without its warning
    else:
        tau_b = float(_kendalltau(ranks_ref, ranks_sys, variant="b").statistic)
    if math.isnan(tau_b):
        note = (
            "Kendall tau-b is undefined (fewer than two items, or one list ranks all items"
            " equally): reported as 0"
        )
        tau_b_out, tau_norm = None, 0.0
    else:
        tau_b_out, tau_norm = tau_b, (tau_b + 1) / 2
    return {
        "precision": precision,
        "recall": recall,
        "f1": f1,
        "tau_b": tau_b_out,
        "tau_norm": tau_norm,
        "final_score": tau_norm * f1,
        "tp": tp,
        "fp": fp,
        "fn": fn,
        "ranks_reference": ranks_ref,
        "ranks_system": ranks_sys,
        "note": note,
    }


def score_beam_ordering(reference: Sequence[str], system: Sequence[str]) -> Score:
    """BEAM event ordering as its report scores it: `tau_norm`, not `tau_norm × F1`.

    BEAM's `report_results.py` reads `tau_norm`; `final_score` (= tau_norm × F1, what the paper's
    formula suggests) and F1 are given in the reasons so either can be checked.  Note that
    tau_norm alone gives 0.5 to unrelated orders, and credit to a reply with no matching items.
    """
    stats = beam_ordering(reference, system)
    tau = "undefined" if stats["tau_b"] is None else f"{stats['tau_b']:.3f}"
    reasons = [
        f"{stats['tp']} of {len(set(reference))} reference events found, {stats['fp']} extra system entries;"
        f" P = {stats['precision']:.3f}, R = {stats['recall']:.3f}, F1 = {stats['f1']:.3f}",
        f"tau_b = {tau} over ranks {stats['ranks_reference']} vs {stats['ranks_system']};"
        f" tau_norm = {stats['tau_norm']:.3f}, tau_norm × F1 = {stats['final_score']:.3f}",
    ]
    if stats["note"]:
        reasons.append(stats["note"])
    reasons.append(f"score = tau_norm = {stats['tau_norm']:.3f} (what BEAM's report uses)")
    details = {
        key: stats[key]
        for key in ("precision", "recall", "f1", "tau_b", "tau_norm", "final_score", "tp", "fp", "fn")
    }
    return Score(min(1.0, max(0.0, stats["tau_norm"])), tuple(reasons), details)


def _kendalltau(*args: Any, **kwargs: Any) -> Any:
    """scipy's kendalltau, imported when first needed: scipy.stats takes about a second to import,
    which every benchmark session (and xdist worker) would pay at start-up otherwise."""
    return heavy_import("scipy.stats").kendalltau(*args, **kwargs)
