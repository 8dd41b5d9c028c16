"""The review's section-5 figures in its arrangement (reports.review.figures), from the synthetic table with its
metrics renamed to review metrics: ``uncal`` as Z-diff (intervention), ``lin`` as DCI-lasso (predictor, three
sub-scores), ``step`` as MIG (information)."""

from __future__ import annotations

import pandas as pd
import pytest

from reports import check_results
from reports.analyses.sample_efficiency import sample_efficiency
from reports.review.figures import paper_figure_drawers

RENAMED = {"uncal": ("z_diff", "z_diff"), "lin": ("dci_lasso", None), "step": ("mig", "mig")}


@pytest.fixture(scope="module")
def reviewed(synthetic_results) -> pd.DataFrame:
    frames = []
    for old, (metric, sub_score) in RENAMED.items():
        rows = synthetic_results.loc[synthetic_results["metric"] == old].assign(metric=metric)
        frames.append(rows if sub_score is None else rows.assign(sub_score=sub_score))
    return check_results(pd.concat(frames, ignore_index=True))


def test_one_figure_per_experiment_the_results_hold_captioned_with_the_papers_number(reviewed):
    drawers = {key: (caption, draw) for key, caption, draw in paper_figure_drawers(reviewed, sample_efficiency(reviewed))}
    assert list(drawers) == ["review_figure4_noise", "review_figure5_mixing", "review_figure7_nonlinear",
                             "review_figure8_partial", "review_figure9_sample_size"]
    caption, _ = drawers["review_figure4_noise"]
    assert caption.startswith("Zaidi et al. (2022), Figure 4 (section 5.2)") and "3 seeds" in caption
    assert "n = 2000" in caption


def test_the_panels_are_the_papers_families_with_its_names(reviewed):
    (_, _, draw), *_ = paper_figure_drawers(reviewed, None)
    figure = draw().figure
    axes = [ax for ax in figure.axes if ax.get_title(loc="left")]
    assert [ax.get_title(loc="left") for ax in axes] == ["(a) intervention-based", "(b) predictor-based",
                                                         "(c) information-based"]
    legends = [[text.get_text() for text in ax.get_legend().get_texts()] for ax in axes]
    assert legends[1] == ["DCI Lasso Modularity", "DCI Lasso Compactness", "DCI Lasso Explicitness"]
    assert legends[2] == ["MIG"] and axes[0].get_xlabel() == "noise level α"


def test_an_experiment_without_a_review_metric_is_left_out(reviewed):
    others = reviewed.assign(metric="someone_elses")
    assert paper_figure_drawers(others, None) == []
    assert [key for key, _, _ in paper_figure_drawers(reviewed.loc[reviewed["scenario"] == "partial"], None)] == [
        "review_figure8_partial"]


def test_a_raced_experiment_captions_its_fewest_and_most_seeds(reviewed):
    # a racing study gives the points of an undecided verdict more seeds: the caption says the range, not the most
    noise = reviewed.loc[reviewed["scenario"] == "noise"]
    extra = noise.loc[(noise["metric"] == "mig") & (noise["seed"] == noise["seed"].max())]
    raced = pd.concat([reviewed, *(extra.assign(seed=extra["seed"] + shift) for shift in (1, 2, 3))], ignore_index=True)
    caption = {key: text for key, text, _ in paper_figure_drawers(raced, sample_efficiency(raced))}["review_figure4_noise"]
    assert "3 to 6 seeds (raced: more where a verdict needed them)" in caption


@pytest.mark.slow
def test_each_figure_keeps_its_title_inside_the_figure(reviewed):
    # the protocol line ran past both edges of a 6.8-inch figure (figures 5 and 7), and a figure whose ideal tags
    # found no free spot lost its title to the notes replacing it (figure 4)
    for key, _, draw in paper_figure_drawers(reviewed, sample_efficiency(reviewed)):
        figure = draw().figure
        figure.draw_without_rendering()
        title = figure._suptitle
        box, frame = title.get_window_extent(), figure.bbox
        assert title.get_text().startswith("Zaidi et al. (2022), Figure "), key
        assert frame.x0 <= box.x0 and box.x1 <= frame.x1, key


def test_notes_written_above_the_panels_keep_the_figures_title():
    from matplotlib.figure import Figure

    from reports.rendering.comparison import _write_notes

    figure = Figure(figsize=(6.8, 3))
    height = _write_notes(figure, ["(b) predictor-based: ideal M,C: grey line from 1 at 0 to 1 at 0.4."], 7,
                          heading="Zaidi et al. (2022), Figure 4 (section 5.2): noise")
    assert figure._suptitle.get_text() == ("Zaidi et al. (2022), Figure 4 (section 5.2): noise\n"
                                           "(b) predictor-based: ideal M,C: grey line from 1 at 0 to 1 at 0.4.")
    # one line of notes at the title's 7 points (the title's own height was there before); the title keeps its size and
    # place (figure 4, with notes, had its title at 5 points from the left, figure 5 at 7 points centred)
    assert height == pytest.approx(7 * 1.25 / 72)
    assert figure._suptitle.get_fontsize() == 7 and figure._suptitle.get_horizontalalignment() == "center"
