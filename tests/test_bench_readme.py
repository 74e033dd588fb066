"""The README's benchmark table is the table of ``results/bench.json``."""
from scripts import readme_results


def test_readme_benchmark_block_is_the_table_of_results_bench_json():
    readme = readme_results.README.read_text(encoding="utf8")
    block = readme_results.readme_block(readme, readme_results.BENCH_START, readme_results.BENCH_END)
    assert block, "README.md has no benchmark block: run python -m scripts.readme_results"
    fresh = readme_results.render_bench(readme_results.ROOT / "results")
    assert block == fresh, "README benchmark block is stale: run python -m scripts.readme_results"



def _with_steps(tmp_path, steps):
    import json

    bench = json.loads((readme_results.ROOT / "results" / "bench.json").read_text(encoding="utf8"))
    bench["sections"]["blank"]["per_component_us"] = steps
    bench["sections"]["blank"].pop("coverage_share_pct", None)  # a run from before the rounds' shares were kept
    (tmp_path / "bench.json").write_text(json.dumps(bench), encoding="utf8")
    return [line for line in readme_results.render_bench(tmp_path).splitlines() if "coverage step's share" in line]


def test_coverage_share_is_judged_on_the_pipes_alone(tmp_path):
    steps = {"case_doc": 50.0, "semgap_terms": 40.0, "semgap_coverage": 10.0, "semgap_decision": 50.0}
    assert _with_steps(tmp_path, steps) == [
        "| the coverage step's share of the 3 pipes' time (µs per case below) | 10 % | ≤ 15 % | met |"]
    steps["semgap_coverage"] = 20.0  # 20 of 110: 18 %
    (row,) = _with_steps(tmp_path, steps)
    assert row.endswith("| 18 % | ≤ 15 % | **not met** |")


def _worker_rows(tmp_path, wall, marginal):
    import json

    bench = json.loads((readme_results.ROOT / "results" / "bench.json").read_text(encoding="utf8"))
    bench["sections"]["workers"]["legs"]["workers_2"].update(speedup_wall=wall, speedup_marginal=marginal)
    (tmp_path / "bench.json").write_text(json.dumps(bench), encoding="utf8")
    return [line for line in readme_results.render_bench(tmp_path).splitlines() if "`assess --workers 2`" in line]


def test_a_worker_speed_up_beyond_two_after_start_up_is_not_judged(tmp_path):
    (row,) = _worker_rows(tmp_path, 1.86, 2.33)
    assert row.endswith("| not judged (more than 2× after start-up: the one-worker leg was slowed) |")
    (row,) = _worker_rows(tmp_path, 1.86, 1.95)
    assert row.endswith("| ≥ 1.7× | met |")
    (row,) = _worker_rows(tmp_path, 1.5, 1.95)
    assert row.endswith("| ≥ 1.7× | **not met** |")


def test_the_speed_up_start_up_leaves_room_for():
    from scripts.bench import split_ceiling

    one = {"wall_s": 8.0, "start_up_s": 1.75}
    assert split_ceiling(one, {"wall_s": 5.1, "start_up_s": 1.65}, 2) == 1.68  # 8.0 / (1.65 + 6.25 / 2)
    assert split_ceiling(one, {"wall_s": 3.2, "start_up_s": 0.0}, 2) == 2.56  # a leg with no start-up of its own
    assert split_ceiling(one, {"wall_s": 8.0, "start_up_s": 1.75}, 1) is None
    assert split_ceiling(one, {"wall_s": 5.1, "start_up_s": None}, 2) is None


def test_the_coverage_share_is_the_median_of_the_rounds_shares_when_they_were_kept(tmp_path):
    import json

    bench = json.loads((readme_results.ROOT / "results" / "bench.json").read_text(encoding="utf8"))
    bench["sections"]["blank"]["coverage_share_pct"] = {"median": 16.0, "rounds": [7.0, 16.0, 30.0]}
    (tmp_path / "bench.json").write_text(json.dumps(bench), encoding="utf8")
    (row,) = [line for line in readme_results.render_bench(tmp_path).splitlines() if "coverage step's share" in line]
    assert "median of 3 rounds (each round's 7-30 %) | 16 % | ≤ 15 % | **not met** |" in row
