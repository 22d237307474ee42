# SPDX-License-Identifier: GPL-2.0-or-later
"""Runs the libFuzzer target over the image parser for a bounded time on a seed corpus
of generated images (tests/fuzz-corpus.sh); any crash or sanitizer report fails."""
import os
import shutil

from conftest import BUILD, ROOT, run

SECONDS = int(os.environ.get("CXR_FUZZ_SECONDS", "60"))


def test_fuzz_image_parser(tmp_path):
    fuzzer = BUILD / "fuzz" / "fuzz_image"
    assert fuzzer.exists(), "build/fuzz/fuzz_image is missing: run make check"
    r = run([ROOT / "tests" / "fuzz-corpus.sh", BUILD])
    assert r.returncode == 0, r.stderr
    corpus = tmp_path / "corpus"
    shutil.copytree(BUILD / "fuzz" / "corpus", corpus)
    r = run([fuzzer, f"-max_total_time={SECONDS}", "-max_len=140000", "-rss_limit_mb=2048",
             f"-artifact_prefix={tmp_path}/", "-print_final_stats=1", corpus])
    log = r.stdout + r.stderr
    assert r.returncode == 0, log[-4000:]
    assert "ERROR:" not in log and "runtime error" not in log, log[-4000:]
    assert "Done " in log, log[-2000:]
    print(f"fuzzed for {SECONDS} s: " + [l for l in log.splitlines() if l.startswith("Done ")][0])
