"""What a process that draws nothing and fits no model imports: neither matplotlib nor scikit-learn.

A worker imports the scoring code and every metric (to find them in the registry); ``list``, ``baseline`` and the
cost model import the registry too.  scikit-learn, SciPy's statistics and matplotlib took about half of each such
process's start (4.9 CPU-s for a worker's imports, 2.6 without them), and a study starts one process per core:
they are imported where a metric fits a model or a report draws.
"""

from __future__ import annotations


def test_importing_the_scoring_code_the_registry_the_analyses_or_the_runner_loads_no_drawing_or_model_library(fresh_python):
    # one process for all four (each alone would load a subset of what they load together)
    probe = ("import sys, harness.execution.scoring, metrics, reports, harness.execution.runner\n"
             "assert len(metrics.available(population=None)) > 25\n"  # every metric registered, none fitted
             "print(sorted(name for name in ('matplotlib', 'sklearn') if name in sys.modules))")
    out = fresh_python(probe)
    assert out.strip() == "[]"


def test_a_metric_that_fits_a_model_still_finds_it_and_the_report_its_drawing(fresh_python):
    probe = ("import sys, numpy as np, metrics, reports\n"
             "rng = np.random.default_rng(0); v = rng.random((200, 2))\n"
             "metrics.evaluate('dci_lasso', v, v + 0.01 * rng.random((200, 2)))\n"
             "reports.StyleRegistry\n"
             "print(sorted(name for name in ('matplotlib', 'sklearn') if name in sys.modules))")
    out = fresh_python(probe)
    assert out.strip() == "['matplotlib', 'sklearn']"


def test_a_process_reading_results_imports_no_metric_module_until_it_looks_one_up(fresh_python):
    """A report's and a plot's processes (the main one and every figure worker) import ``reports.report`` to read
    results, and it needs the registry's names, not the metrics' code: importing every metric module took about
    0.2 CPU-s in each.  The first lookup imports them all, so the registry is never read partly filled."""
    probe = ("import sys, reports.report\n"
             "def loaded(): return sorted(n for n in ('metrics.mig', 'metrics.dci_rf', 'metrics.udr') if n in sys.modules)\n"
             "print(loaded())\n"
             "import metrics\n"
             "print(len(metrics.available(population=None)) > 25, metrics.get('udr').population, loaded())")
    out = fresh_python(probe)
    assert out.split("\n")[:2] == ["[]", "True True ['metrics.dci_rf', 'metrics.mig', 'metrics.udr']"]


def test_threads_looking_up_metrics_at_once_each_find_the_whole_registry(fresh_python):
    """The first lookup imports the built-ins under a lock: a second thread's lookup waits for the import to end
    rather than reading a registry that the first one is still filling."""
    probe = ("import threading, metrics.registry as registry\n"
             "found = []\n"
             "def look(): found.append((len(registry.available(population=None)), registry.get('mig').name))\n"
             "threads = [threading.Thread(target=look) for _ in range(4)]\n"
             "[thread.start() for thread in threads]; [thread.join() for thread in threads]\n"
             "print(sorted(set(found)), len(found))")
    out = fresh_python(probe)
    count = len(__import__("metrics").available(population=None))
    assert out.strip() == f"[({count}, 'mig')] 4"


def test_a_metric_of_a_built_in_name_is_refused_when_it_registers_before_any_lookup(fresh_python):
    """The built-ins are imported before a registration is read: a user's metric named ``mig`` is refused at its
    own decorator, as when the package imported them eagerly (not later, inside some lookup of the registry)."""
    probe = ("from metrics.registry import register_metric\n"
             "try:\n"
             "    register_metric('mig', family='information', properties='modularity')(lambda f, c, *, discrete=None: 0.0)\n"
             "except ValueError as error: print(error)\n")
    out = fresh_python(probe)
    assert out.strip() == "a metric named 'mig' is already registered"
