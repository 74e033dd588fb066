"""The README's benchmark table is the table of ``results/bench.json``."""
from scripts import readme_results


def test_readme_benchmark_block_is_the_table_of_results_bench_json():
    readme = readme_results.README.read_text(encoding="utf8")
    block = readme_results.readme_block(readme, readme_results.BENCH_START, readme_results.BENCH_END)
    assert block, "README.md has no benchmark block: run python -m scripts.readme_results"
    fresh = readme_results.render_bench(readme_results.ROOT / "results")
    assert block == fresh, "README benchmark block is stale: run python -m scripts.readme_results"
