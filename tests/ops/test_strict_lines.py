"""Every line of a cases file is read strictly, and gets exactly one decision.

A line a lenient reader would misread (a duplicated key), or that used to
abort the whole run (deep nesting, a 4,301-digit integer), escalates with a
reason naming the problem and the line; the lines around it are decided as
usual. A failed run never touches an existing output file.
"""
import json
import os
import subprocess
import sys

import pytest

from semgap_spacy.ops import cli
from semgap_spacy.ops.cli import main
from semgap_spacy.core.reasons import REASON_CODES
from semgap_spacy.util.jsonl import parse_line, read_jsonl
from semgap_spacy.util.strict_json import MAX_DEPTH, MAX_NUMBER_DIGITS, StrictJSONError, loads

GOOD = json.dumps({"id": "ok", "domain": "mortgage", "text": "clear to close"})
NEW_CODES = ("duplicate_key", "input_too_deep", "number_too_large", "lone_surrogate")

SPECIAL = {
    # label: (line, reason code, words the message must hold)
    "duplicate_top": ('{"id":"d","domain":"mortgage","text":"cloud on title, not clear to close",'
                      '"text":"Clear to close"}', "duplicate_key", ['"text"']),
    "duplicate_nested": ('{"id":"n","domain":"mortgage","text":"clear to close",'
                         '"readings":{"dti_ratio":{"value":30,"unit":"%","value":38}}}', "duplicate_key", ['"value"']),
    "deep_1000": ("[" * 1000 + "]" * 1000, "input_too_deep", [str(MAX_DEPTH)]),
    "deep_object": ('{"id":"x","domain":"mortgage","text":"clear to close","readings":'
                    + '{"a":' * 500 + "1" + "}" * 500 + "}", "input_too_deep", [str(MAX_DEPTH)]),
    "int_4301": ('{"id":"b","domain":"mortgage","text":"clear to close","readings":{"dti_ratio":'
                 '{"value":' + "9" * 4301 + ',"unit":"%"}}}', "number_too_large", ["4301"]),
    "surrogate": ('{"id":"s","domain":"mortgage","text":"clear to close \\ud800"}', "lone_surrogate", ['"text"']),
    "surrogate_key": ('{"id":"k","domain":"mortgage","text":"clear to close","\\udfff":1}', "lone_surrogate", []),
    "not_object": ('["clear to close"]', "invalid_case", ["list", "not an object"]),
    "blank": ("", "invalid_case", ["not JSON"]),
    "nan": ('{"id":"nan","domain":"mortgage","text":"clear to close","readings":'
            '{"dti_ratio":{"value":NaN,"unit":"%"}}}', "invalid_case", ["NaN"]),
}


def test_new_codes_are_in_the_closed_table_as_escalate():
    for code in NEW_CODES:
        assert REASON_CODES[code] == "escalate", code


@pytest.fixture(scope="module")
def decided(tmp_path_factory):
    """One file holding every special line between good ones, through the CLI."""
    tmp = tmp_path_factory.mktemp("strict")
    labels = list(SPECIAL)
    lines = []
    for label in labels:
        lines += [GOOD, SPECIAL[label][0]]
    lines.append(GOOD)
    src, out = tmp / "in.jsonl", tmp / "out.jsonl"
    src.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert main(["assess", "--cases", str(src), "--out", str(out)]) == 0
    decisions = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    return labels, lines, decisions


def test_every_line_gets_one_decision_in_order(decided):
    labels, lines, decisions = decided
    assert len(decisions) == len(lines)
    for i, decision in enumerate(decisions):
        if i % 2 == 0:  # the good lines around each special one are still decided
            assert decision["id"] == "ok" and decision["decision"] == "proceed", decision
        else:
            assert decision["id"] is None and decision["line"] == i + 1


@pytest.mark.parametrize("label", list(SPECIAL))
def test_special_line_escalates_with_its_reason(decided, label):
    labels, _, decisions = decided
    decision = decisions[2 * labels.index(label) + 1]
    _, code, words = SPECIAL[label]
    assert decision["decision"] == "escalate"
    codes = [r["code"] for r in decision["reasons"]]
    assert codes == [code], codes  # one reason, not a misleading "no domain" beside it
    message = decision["reasons"][0]["message"]
    assert f"line {decision['line']}" in message
    for word in words:
        assert word in message, message


def test_duplicate_key_is_refused_whichever_value_comes_first():
    for a, b in (("clear to close", "not clear to close"), ("not clear to close", "clear to close")):
        value, problem = parse_line(json.dumps({"text": a})[:-1] + ", " + json.dumps({"text": b})[1:])
        assert value is None and problem[0] == "duplicate_key"


def test_limits_are_checked_before_parsing(monkeypatch):
    # The scan alone refuses these: json.loads is never reached.
    import semgap_spacy.util.strict_json as sj

    def no_parse(*args, **kwargs):
        raise AssertionError("parsed")

    monkeypatch.setattr(sj.json, "loads", no_parse)
    for text, code in (("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1), "input_too_deep"),
                       ("1" * (MAX_NUMBER_DIGITS + 1), "number_too_large"),
                       ("[1." + "0" * MAX_NUMBER_DIGITS + "]", "number_too_large")):
        with pytest.raises(StrictJSONError) as err:
            loads(text)
        assert err.value.code == code


def test_limits_do_not_count_inside_strings_and_allow_the_boundary():
    assert loads('{"t": "' + "[" * 500 + "9" * 500 + '"}')["t"].startswith("[[")
    assert loads("[" * MAX_DEPTH + "]" * MAX_DEPTH)
    assert loads("9" * MAX_NUMBER_DIGITS) == int("9" * MAX_NUMBER_DIGITS)
    assert loads('"\\ud83d\\ude00"') == "\U0001F600"  # a proper surrogate pair is a character


def test_read_jsonl_refuses_a_duplicate_key_naming_the_line(tmp_path):
    path = tmp_path / "d.jsonl"
    path.write_text('{"a": 1}\n{"a": 1, "a": 2}\n', encoding="utf-8")
    with pytest.raises(ValueError) as err:
        read_jsonl(path, "decision")
    assert "d.jsonl:2" in str(err.value) and "duplicate_key" in str(err.value)


# -- a byte order mark at the start of a file (Windows editors write one) ------------------

BOM = b"\xef\xbb\xbf"


def test_line_case_skips_a_bom_on_line_1_only():
    from semgap_spacy.api import line_case

    raw = BOM + GOOD.encode() + b"\n"
    assert line_case(1, raw) == (json.loads(GOOD), None)
    assert line_case(1, raw.decode("utf-8")) == (json.loads(GOOD), None)
    for number in (2, 7):  # anywhere but the start of the file it is a character of the line
        case, reason = line_case(number, raw)
        assert case is None and reason["code"] == "invalid_case" and "BOM" in reason["message"]
    case, reason = line_case(1, BOM + raw)  # one mark is skipped, not two
    assert case is None and reason["code"] == "invalid_case"


def test_assess_decides_line_1_after_a_bom_and_refuses_one_elsewhere(tmp_path):
    src, out = tmp_path / "bom.jsonl", tmp_path / "out.jsonl"
    src.write_bytes(BOM + GOOD.encode() + b"\n" + BOM + GOOD.encode() + b"\n" + GOOD.encode() + b"\n")
    assert main(["assess", "--cases", str(src), "--out", str(out)]) == 0
    decisions = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [(d["id"], d["decision"]) for d in decisions] == [("ok", "proceed"), (None, "escalate"), ("ok", "proceed")]
    assert decisions[1]["line"] == 2 and decisions[1]["reasons"][0]["code"] == "invalid_case"
    plain = tmp_path / "plain.jsonl"
    plain.write_text(GOOD + "\n", encoding="utf-8")
    assert main(["assess", "--cases", str(plain), "--out", str(tmp_path / "plain_out.jsonl")]) == 0
    assert decisions[0] == json.loads((tmp_path / "plain_out.jsonl").read_text(encoding="utf-8"))


def test_read_jsonl_skips_a_bom_at_the_start_only(tmp_path):
    path = tmp_path / "d.jsonl"
    path.write_bytes(BOM + b'{"a": 1}\n{"a": 2}\n')
    assert read_jsonl(path) == [{"a": 1}, {"a": 2}]
    path.write_bytes(BOM + b"\n" + b'{"a": 1}\n')  # a first line that is only the mark is blank
    assert read_jsonl(path) == [{"a": 1}]
    path.write_bytes(b'{"a": 1}\n' + BOM + b'{"a": 2}\n')
    with pytest.raises(ValueError, match="d.jsonl:2"):
        read_jsonl(path)


def test_every_jsonl_command_reads_a_file_saved_with_a_bom(tmp_path, capsys):
    cases, decided = tmp_path / "cases.jsonl", tmp_path / "decided.jsonl"
    cases.write_text(GOOD + "\n", encoding="utf-8")
    assert main(["assess", "--cases", str(cases), "--out", str(decided)]) == 0
    for path in (cases, decided):  # as Notepad saves them
        path.write_bytes(BOM + path.read_bytes())
    runs = [(["verify", "--decisions", str(decided), "--cases", str(cases)], "checked 1 decisions: 1 ok"),
            (["drift", "--baseline", str(decided), "--current", str(decided)], "Records: baseline"),
            (["queue", "enqueue", "--decisions", str(decided), "--cases", str(cases),
              "--db", str(tmp_path / "q.sqlite3")], "1 proceed skipped, 0 refused")]
    for argv, said in runs:
        capsys.readouterr()
        code = main(argv)
        out, err = capsys.readouterr()
        assert code == 0 and said in out, (argv[0], out, err)


def test_stdin_run_with_a_huge_integer_is_not_aborted(tmp_path):
    data = (GOOD + "\n" + SPECIAL["int_4301"][0] + "\n" + GOOD + "\n").encode()
    proc = subprocess.run([sys.executable, "-m", "semgap_spacy", "assess", "--cases", "-", "--out", "-"],
                          input=data, capture_output=True, timeout=300)
    assert proc.returncode == 0, proc.stderr.decode()[-2000:]
    decisions = [json.loads(line) for line in proc.stdout.decode().splitlines()]
    assert [d["decision"] for d in decisions] == ["proceed", "escalate", "proceed"]


# -- a failed run leaves OUT as it was ---------------------------------------------


OLD = b'{"previous": "run", "kept": true}\n\xe2\x9c\x93 bytes as they were\n'


def _out_with_old_content(tmp_path):
    out = tmp_path / "out.jsonl"
    out.write_bytes(OLD)
    os.chmod(out, 0o640)
    return out


def _cases(tmp_path):
    src = tmp_path / "in.jsonl"
    src.write_text(GOOD + "\n" + GOOD + "\n", encoding="utf-8")
    return src


def _only_out_left(tmp_path, out):
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["in.jsonl", out.name])  # no temp file left


def test_failed_out_bad_glossaries_in_a_subprocess(tmp_path):
    out, src = _out_with_old_content(tmp_path), _cases(tmp_path)
    proc = subprocess.run([sys.executable, "-m", "semgap_spacy", "assess", "--cases", str(src),
                           "--out", str(out), "--glossaries", str(tmp_path / "no_such_dir")],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode != 0
    assert out.read_bytes() == OLD
    assert "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert "no_such_dir" in proc.stderr
    _only_out_left(tmp_path, out)


def test_failed_out_broken_glossary_file_one_line_error(tmp_path, capsys):
    out, src = _out_with_old_content(tmp_path), _cases(tmp_path)
    bad = tmp_path / "gl"
    bad.mkdir()
    (bad / "mortgage.yaml").write_text("domain: mortgage\nversion: [1, 2\nterms: {\n", encoding="utf-8")
    assert main(["assess", "--cases", str(src), "--out", str(out), "--glossaries", str(bad)]) != 0
    err = capsys.readouterr().err
    assert out.read_bytes() == OLD
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err


def test_failed_out_exception_mid_run(tmp_path, capsys, monkeypatch):
    out, src = _out_with_old_content(tmp_path), _cases(tmp_path)
    real = cli.decide_lines

    def fails_after_one(nlp, docs, **kwargs):
        for i, decision in enumerate(real(nlp, docs, **kwargs)):
            if i == 1:
                raise RuntimeError("disk on fire")
            yield decision

    monkeypatch.setattr(cli, "decide_lines", fails_after_one)
    assert main(["assess", "--cases", str(src), "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert out.read_bytes() == OLD
    assert err.strip() == "semgap: RuntimeError: disk on fire"
    _only_out_left(tmp_path, out)


def test_successful_out_replaces_and_keeps_permissions(tmp_path):
    out, src = _out_with_old_content(tmp_path), _cases(tmp_path)
    assert main(["assess", "--cases", str(src), "--out", str(out)]) == 0
    assert [json.loads(line)["decision"] for line in out.read_text().splitlines()] == ["proceed", "proceed"]
    assert os.stat(out).st_mode & 0o777 == 0o640
    _only_out_left(tmp_path, out)


def test_out_through_a_link_replaces_its_target_and_keeps_the_link(tmp_path):
    src, target = _cases(tmp_path), tmp_path / "target.jsonl"
    target.write_text("old\n", encoding="utf8")
    link = tmp_path / "link.jsonl"
    link.symlink_to(target)
    assert main(["assess", "--cases", str(src), "--out", str(link)]) == 0
    assert link.is_symlink() and len(target.read_text().splitlines()) == 2


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_out_that_is_a_pipe_is_written_to_not_replaced(tmp_path):
    import stat
    import threading

    src, fifo = _cases(tmp_path), tmp_path / "decisions.fifo"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_text(encoding="utf8")))
    reader.start()
    assert main(["assess", "--cases", str(src), "--out", str(fifo)]) == 0
    reader.join(timeout=60)
    assert stat.S_ISFIFO(os.stat(fifo).st_mode) and len(got[0].splitlines()) == 2


def test_out_in_a_missing_folder_names_the_folder(tmp_path, capsys):
    out = tmp_path / "nodir" / "out.jsonl"
    assert main(["assess", "--cases", str(_cases(tmp_path)), "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert f"no folder {str(out.parent)!r}" in err and ".tmp" not in err


def test_failed_queue_export_leaves_out(tmp_path, monkeypatch):
    from semgap_spacy.ops import review_queue
    from semgap_spacy.ops.queue_cli import main as queue_main

    out = _out_with_old_content(tmp_path)
    db = tmp_path / "q.sqlite3"

    def broken(self, target):
        target.write("half a row")
        raise review_queue.QueueError("export failed")

    with review_queue.ReviewQueue(db):
        pass
    monkeypatch.setattr(review_queue.ReviewQueue, "export", broken)
    assert queue_main(["queue", "export", "--db", str(db), "--out", str(out)]) == 1
    assert out.read_bytes() == OLD


def test_scan_stays_linear_on_an_unterminated_escaped_string():
    # Every other character a quote: a backtracking string pattern would be quadratic here.
    import time

    start = time.perf_counter()
    value, problem = parse_line('"' + '\\"' * 100_000)
    assert value is None and problem[0] == "invalid_case"
    assert time.perf_counter() - start < 5


def test_a_parser_message_names_its_column_once():
    with pytest.raises(StrictJSONError) as err:
        loads('{"a": "x\ty"}')
    assert "at column" in str(err.value) and "at at" not in str(err.value)


@pytest.mark.parametrize("text", ['{"id": 1e400}', '{"id": -2e400}', '[1.5e999]'])
def test_a_number_beyond_a_float_is_refused_not_read_as_infinity(text):
    with pytest.raises(StrictJSONError) as err:
        loads(text)
    assert err.value.code == "number_too_large"
    assert loads('{"id": 1e300}') == {"id": 1e300}


def test_a_line_that_is_no_text_escalates_naming_it():
    # decide_lines given a caller's list that holds something else than lines raised a TypeError
    from semgap_spacy import build_pipeline
    from semgap_spacy.api import decide_lines

    decided = list(decide_lines(build_pipeline(), ['{"id": "a", "domain": "mortgage", "text": "Clear to close"}',
                                                   5, None, {"id": 1}]))
    assert [d["decision"] for d in decided] == ["proceed", "escalate", "escalate", "escalate"]
    assert [r["message"] for r in decided[1]["reasons"]] == ["line 2: a int, not a line of text"]


def test_verify_reads_cases_as_assess_reads_them(tmp_path, capsys):
    # a line assess refused (NaN, a lone surrogate) was decided on no text, and an object id is
    # echoed as its text: verify read them leniently and flagged assess's own output
    cases, decided = tmp_path / "cases.jsonl", tmp_path / "decided.jsonl"
    cases.write_text('{"id": "a", "domain": "mortgage", "text": "Clear to close"}\n'
                     '{"id": "b", "domain": "mortgage", "text": "Clear to close", "x": NaN}\n'
                     '{"id": {"a": [1, 2]}, "domain": "mortgage", "text": "Clear to close"}\n'
                     '{"id": "d", "domain": "mortgage", "text": "Clear \\ud800 to close"}\n', encoding="utf8")
    assert main(["assess", "--cases", str(cases), "--out", str(decided)]) == 0
    capsys.readouterr()
    assert main(["verify", "--decisions", str(decided), "--cases", str(cases)]) == 0
    assert "checked 4 decisions: 4 ok" in capsys.readouterr().out


def test_a_line_joined_by_carriage_returns_says_so():
    value, problem = parse_line(b'{"id": "a"}\r{"id": "b"}\r\n')
    assert value is None and "carriage return" in problem[1]
    assert parse_line(b'{"id": "a"}\r\n') == ({"id": "a"}, None)  # CRLF ends a line as LF does
