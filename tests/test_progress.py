"""The progress bar of long runs: on a terminal only, counting cases, never in the way of the output."""
import io
import sys

from semgap_spacy.api import progress_bar, with_progress


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_a_bar_counts_cases_on_a_terminal(monkeypatch):
    monkeypatch.setattr(sys, "stderr", _Terminal())
    with progress_bar(True, total=10) as bar:
        bar.update(4)
        bar.update(6)
        assert bar.n == 10 and bar.total == 10
    items = [{"decision": "escalate"}] * 5
    assert list(with_progress(iter(items), True, total=5)) == items


def test_no_bar_off_a_terminal_or_when_disabled(monkeypatch):
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    with progress_bar(True, total=3) as bar:
        bar.update(3)
        assert not hasattr(bar, "n")
    monkeypatch.setattr(sys, "stderr", _Terminal())
    with progress_bar(False) as bar:
        assert not hasattr(bar, "n")
    assert sys.stderr.getvalue() == ""
