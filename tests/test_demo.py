import subprocess
import sys

from labeler import labeling
from labeler.demo import DEMO_DIR, load_demo
from labeler.store import Store
from tests.conftest import REPO


def test_the_committed_demo_is_what_the_builder_makes() -> None:
    result = subprocess.run(
        [sys.executable, str(REPO / "data" / "build_demo.py"), "--check"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_demo_opens_with_work_done_and_work_to_do(store: Store) -> None:
    reports = load_demo(store, DEMO_DIR)
    assert all(r.changed for r in reports)
    status = store.status()
    assert status["chunkings"]["default"] >= 300
    assert status["documents"] >= 40
    assert status["questions"] >= 60
    assert sorted(status["runs"]) == ["bm25", "hybrid", "weak"]
    assert set(status["labels"]["by_reviewer"]) == {"maria", "tom"}
    done = labeling.progress(store, None)["everyone"]
    assert 0.3 * status["questions"] <= done <= 0.6 * status["questions"]
    assert not any(r.changed for r in load_demo(store, DEMO_DIR))


def test_the_demo_reviewers_disagree_somewhere(store: Store) -> None:
    load_demo(store, DEMO_DIR)
    disagreements = store.scalar(
        "SELECT count(*) FROM (SELECT question_id, chunk_id FROM labels"
        " GROUP BY question_id, chunk_id HAVING count(DISTINCT grade) > 1)"
    )
    assert disagreements >= 3
