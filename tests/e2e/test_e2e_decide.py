"""From the Results page to the grading page's queue "decide A vs B" in a real browser, on the
demo: the link opens the most decisive question with its deciding chunks marked, keys grade
them, and N moves to the next question of the queue."""

import re

import pytest

from labeler.store import Store
from tests.e2e.conftest import ready_for_keys, screenshot, wait_for_app

pytestmark = pytest.mark.e2e


def test_results_link_opens_the_queue_and_keys_grade_it(demo_db, serve, page) -> None:
    server = serve(demo_db)
    page.goto(f"{server.url}/results?reviewer=maria")
    wait_for_app(page)
    link = page.get_by_text("Grade them: decide hybrid vs bm25 on the grading page")
    link.scroll_into_view_if_needed()
    link.click()
    page.wait_for_url(re.compile(r"decide=hybrid"))
    wait_for_app(page)
    page.wait_for_selector(".lbl-decides")
    page.wait_for_timeout(500)
    assert page.locator("[data-testid='stException']").count() == 0
    assert "proven range" in page.locator(".lbl-decide-status").inner_text()  # the status line
    first = re.search(r"question=([^&]+)", page.url).group(1)  # as the URL writes it
    marked = page.locator(".lbl-decides").count()
    assert marked >= 1
    screenshot(page, "decide-queue")
    page.mouse.move(700, 400)
    page.mouse.wheel(0, -5000)  # the page scrolled to the highlighted card: back to the top
    page.wait_for_timeout(600)
    screenshot(page, "decide-queue-status")
    # Grade the highlighted (deciding) chunk from the keyboard, then the next question.
    page.locator("[data-testid='stApp']").click(position={"x": 5, "y": 5})
    page.keyboard.press("0")
    wait_for_app(page)
    page.keyboard.press("n")
    page.wait_for_function(
        f"() => !location.search.includes('question={first}&')"
        f" && !location.search.endsWith('question={first}')"
    )
    wait_for_app(page)
    page.wait_for_selector(".lbl-decides")
    page.wait_for_timeout(500)
    assert page.locator("[data-testid='stException']").count() == 0
    screenshot(page, "decide-queue-next")


class Sent:
    """What the server sends the page over its socket (Streamlit's ForwardMsg protobufs)."""

    def __init__(self, page) -> None:
        self.frames: list[bytes] = []

        def listen(socket) -> None:
            socket.on(
                "framereceived",
                lambda payload: self.frames.append(payload) if isinstance(payload, bytes) else None,
            )

        page.on("websocket", listen)

    def after(self, page, key: str) -> dict:
        """Press ``key`` and read what came back until the page is idle: the fragments that ran
        (the ``fragment_id`` of every delta) and, in the order sent, what they drew: the
        toolbar (the head), a card, the status line."""
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

        self.frames.clear()
        page.keyboard.press(key)
        page.wait_for_timeout(150)
        wait_for_app(page)
        page.wait_for_timeout(300)
        fragments: set[str] = set()
        drawn: list[str] = []
        for frame in self.frames:
            message = ForwardMsg()
            message.ParseFromString(frame)
            if message.WhichOneof("type") != "delta":
                continue
            fragments.add(message.delta.fragment_id)
            element = message.delta.new_element
            if 'class="lbl-card-head"' in element.html.body:
                drawn.append("card")
            elif 'class="lbl-decide-status"' in element.html.body:
                drawn.append("status")
            elif element.WhichOneof("type") == "button" and "head" not in drawn:
                drawn.append("head")
        return {"fragments": fragments, "drawn": drawn}


def test_a_grade_reruns_the_head_its_card_and_then_the_status(demo_db, serve, page) -> None:
    """The queue keeps the fragment page's economy: a grade key reruns the head, the graded card
    and the status line (after the card, so working the comparison out again never delays the
    grade on screen); J reruns the head alone; the other cards never rerun."""
    server = serve(demo_db)
    sent = Sent(page)
    page.goto(f"{server.url}/?reviewer=maria&decide=hybrid,bm25,ndcg@10")
    page.wait_for_selector(".lbl-decides")
    ready_for_keys(page)
    before = page.locator(".lbl-decide-status").inner_text()
    graded = sent.after(page, "0")
    assert len(graded["fragments"]) == 3  # the head, the graded card, the status line
    assert graded["drawn"].count("card") == 1
    assert graded["drawn"][0] == "head"
    assert graded["drawn"][-1] == "status"
    assert graded["drawn"].index("card") < graded["drawn"].index("status")
    after = page.locator(".lbl-decide-status").inner_text()
    assert after != before  # one chunk fewer left to grade
    moved = sent.after(page, "j")
    assert len(moved["fragments"]) == 1
    assert moved["drawn"] == ["head"]
    screenshot(page, "decide-queue-after-a-grade")


def grades_that_prove_it(folder, files, dense) -> list[tuple[str, str, int]]:
    """On a copy of the project: the queue's first pair graded from the truth, again and
    again, until dense vs bm25 on ndcg@3 is proven; the grades in that order."""
    from labeler.grading.decide import decision_queue
    from labeler.importers import import_chunks, import_questions, import_run
    from tests.test_app_decide import TRUTH

    grades = []
    with Store(folder / "copy.db") as copy:
        import_chunks(copy, files["chunks"])
        import_questions(copy, files["questions"])
        import_run(copy, files["run"])
        import_run(copy, dense)
        while (queue := decision_queue(copy, "dense", "bm25", "ndcg@3")).questions:
            question = queue.questions[0]
            chunk = queue.chunks[question][0]
            grades.append((question, chunk, TRUTH.get((question, chunk), 0)))
            copy.labels.set_grade(question, "default", chunk, "ana", grades[-1][2])
    return grades


def test_once_proven_the_band_says_so_and_leads_back(
    loaded: Store, files, serve, page, tmp_path
) -> None:
    """The grade that proves the comparison: the band says so at once (the marks go), N then
    shows that nothing is left to decide, and the way back opens every question."""
    from labeler.importers import import_run
    from tests.test_sources import DENSE

    dense = tmp_path / "dense.trec"
    dense.write_text(DENSE, encoding="utf-8")
    import_run(loaded, dense)
    *before, (question, chunk, grade) = grades_that_prove_it(tmp_path, files, dense)
    for earlier in before:
        loaded.labels.set_grade(earlier[0], "default", earlier[1], "ana", earlier[2])
    server = serve(loaded.path)
    page.goto(f"{server.url}/?reviewer=ana&question={question}&decide=dense,bm25,ndcg@3")
    page.wait_for_selector(".lbl-decide-status")
    ready_for_keys(page)
    cursor = "() => document.querySelector('.lbl-cursor')?.dataset.card"
    for _ in range(10):  # J to the chunk whose grade proves it
        if chunk in page.locator(f".st-key-{page.evaluate(cursor)} .lbl-card-head").inner_text():
            break
        page.keyboard.press("j")
        wait_for_app(page)
    page.keyboard.press(str(grade))
    page.get_by_text("Nothing more to grade for this comparison").wait_for()
    wait_for_app(page)
    assert page.locator(".lbl-decides:visible").count() == 0
    screenshot(page, "decide-queue-proven")
    page.keyboard.press("n")
    page.get_by_text("dense vs bm25 on ndcg@3: decided").wait_for()
    wait_for_app(page)
    page.get_by_role("button", name="Back to all questions").click()
    page.locator(".st-key-label_card_0").wait_for()
    wait_for_app(page)
    assert "decide=" not in page.url
    assert page.locator(".lbl-decide-status").count() == 0
    assert page.locator("[data-testid='stException']").count() == 0
