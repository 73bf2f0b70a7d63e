"""``labeler judge run``: an LLM judge's grades, made here, against any OpenAI-compatible
endpoint, stored as ratings like an imported judge's (so they appear at once in ``judge
sample``, the spot-check page and ``judge report``).

What is judged:

- ``relevance``: every (question, chunk) of the chosen questions' pools (``labeler.grading.
  candidates.pool``, the one reading of a pool) that a run put within its top ``depth``, or that
  the full-text search, a reviewer or a generator added; chunks that are in a pool only because
  someone labelled them are left out (they are in no retriever's results).
- ``faithfulness``: every answer the project holds (imported with its passages from DeepEval or
  Ragas) to the chosen questions.

A turn of a conversation is sent as the grading page shows it: the conversation before it, the
turn and its rewrite, in the prompt's ``{{question}}`` (``labeler.conversations.prompt_text``),
which is also the question's text in the cache's key.

Each pair is looked up before any call, in this order: rated already by this judge for the same
text (or imported under its name): nothing to do; answered before by the same model and prompt
for the same question and text (the cache, keyed by the prompt's hash, the model, the question's
text and the rated text): the answer is written as this judge's rating without a call; else it
is called. Replacing a chunk's text (``labeler import chunks --replace-text``) changes its key,
so that chunk, and only it, is asked again.

Calls run on ``concurrency`` threads; the store stays on the calling thread, which writes the
finished calls as they arrive, in one short transaction each time (the calls, their ratings
through ``labeler.judge.importing``'s own staging and merge, and the links between them; at
most every ``FLUSH_S``, so a fast endpoint's answers go in batches). A crash loses the calls
in flight (and at most ``FLUSH_S`` of answers); the next run resumes where this one stopped.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path

from labeler.accounts.roles import Right, require
from labeler.conversations import prompt_text
from labeler.errors import LabelerError, NotFoundError
from labeler.grading.candidates import PoolEntry, pool
from labeler.judge.answers import BadAnswer, Verdict, parse_answer
from labeler.judge.client import (
    STOPPED,
    CallFailed,
    ChatClient,
    Endpoint,
    EndpointRefused,
    Reply,
)
from labeler.judge.importing import (
    MetricSettled,
    declare_metric,
    merge_ratings,
    settle_scale,
    stage_ratings,
)
from labeler.judge.prompts import Prompt, contexts_text
from labeler.judge.records import Item, MetricHint, Rating, chunk_key
from labeler.judge.scales import RELEVANCE
from labeler.names import to_name
from labeler.store import Store, check_reviewer
from labeler.store.base import now
from labeler.store.judge_calls import CallRecord

RUN_PATH = Path("judge run")  # what an error about a staged rating names as its file
CACHED_BATCH = 2_000  # cached answers written per transaction
TICK_S = 0.25  # how often the progress is reported while calls are in flight
FLUSH_S = 0.2  # writes at most this often; an answer waits at most this long
FLUSH_N = 200  # answers written at most per transaction
# Pool sources a judge rates: a run's results (within the depth), the searches (BM25 and
# dense), additions.
JUDGED_SOURCES = ("run", "search", "dense", "generator", "added")


@dataclass(frozen=True, slots=True)
class Selection:
    """Which questions: these ids, those tagged ``tag``, or every question in the queue."""

    questions: tuple[str, ...] = ()
    tag: str | None = None
    everything: bool = False


@dataclass(frozen=True, slots=True)
class RunOptions:
    metric: str
    endpoint: Endpoint
    prompt: Prompt
    selection: Selection
    depth: int | None = None
    concurrency: int = 8
    max_calls: int | None = None
    judge_name: str | None = None
    chunking: str | None = None


@dataclass(frozen=True, slots=True)
class Work:
    """One pair to judge: its item, what fills the prompt, and its cache key. The prompt is
    filled on the worker thread, and only for the pairs that are called."""

    item: Item
    question_id: str | None
    chunk_id: str | None
    values: tuple[tuple[str, str], ...]
    cache_key: str


@dataclass(frozen=True, slots=True)
class Plan:
    """What a run would do: the judge, the metric as stored, and the pairs in three lots."""

    judge: str
    metric: MetricSettled
    pairs: int
    rated: int
    cached: tuple[tuple[Work, int, int, str | None], ...]  # (work, call id, grade, reason)
    calls: tuple[Work, ...]
    left: int  # pairs past --max-calls, left for the next run
    skipped: dict[str, int] = field(default_factory=dict)

    def as_dict(self) -> dict:
        return {
            "judge": self.judge,
            "metric": self.metric.name,
            "pairs": self.pairs,
            "rated": self.rated,
            "cached": len(self.cached),
            "calls": len(self.calls),
            "left": self.left,
            "skipped": self.skipped,
        }

    def summary(self) -> str:
        lines = [
            f"{self.judge} on {self.metric.name}: {self.pairs} pairs; {self.rated} rated"
            f" already, {len(self.cached)} from the cache, {len(self.calls)} calls to make"
            + (f" ({self.left} more left for the next run: --max-calls)" if self.left else "")
        ]
        lines += [f"  skipped {n}: {reason}" for reason, n in sorted(self.skipped.items())]
        return "\n".join(lines)


@dataclass(slots=True)
class RunProgress:
    """Where a run stands, for a progress bar."""

    planned: int  # calls to make
    calls: int = 0  # calls finished (answered or failed)
    cached: int = 0
    failed: int = 0
    retried: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    written: int = 0
    started: float = field(default_factory=time.monotonic)

    @property
    def seconds(self) -> float:
        return time.monotonic() - self.started

    @property
    def rate(self) -> float:
        """Calls per second so far."""
        return self.calls / self.seconds if self.seconds > 0 else 0.0

    @property
    def eta(self) -> float | None:
        """Seconds left at the rate so far (None before the first call returns)."""
        return (self.planned - self.calls) / self.rate if self.rate > 0 else None


@dataclass(frozen=True, slots=True)
class RunSummary:
    judge: str
    metric: str
    calls: int
    cached: int
    retried: int
    failed: int
    ratings_written: int
    tokens_in: int
    tokens_out: int
    seconds: float
    left: int
    interrupted: bool = False

    def as_dict(self) -> dict:
        """The JSON of ``labeler judge run --format json``."""
        return {
            "calls": self.calls,
            "cached": self.cached,
            "retried": self.retried,
            "failed": self.failed,
            "ratings_written": self.ratings_written,
            "tokens_in": self.tokens_in,
            "tokens_out": self.tokens_out,
            "seconds": round(self.seconds, 3),
        }

    def summary(self) -> str:
        state = "interrupted" if self.interrupted else "done"
        lines = [
            f"{self.judge} on {self.metric}, {state} in {self.seconds:.1f} s: {self.calls} calls"
            f" ({self.retried} retries, {self.failed} failed), {self.cached} from the cache or"
            f" rated already; {self.ratings_written} ratings written; tokens"
            f" {self.tokens_in} in, {self.tokens_out} out"
        ]
        if self.failed:
            lines.append(
                f"  {self.failed} failed calls are kept with their raw text"
                f" (labeler judge ratings --metric {self.metric} --failed); the next run asks again"
            )
        if self.left or self.interrupted:
            lines.append("  run the same command again to go on where this one stopped")
        return "\n".join(lines)


# naming and settling --------------------------------------------------------------------------


def judge_name(model: str, prompt: Prompt, given: str | None = None) -> str:
    """``model.version-hash`` (``qwen2.5_7b.relevance-v1-3fa2c1d0`` for ``qwen2.5:7b``), or
    the name given; held to the rule every rater's name follows (``labeler.names``), so each
    character of the model's name that the rule does not allow is written as ``_``."""
    name = given
    if name is None:
        name = f"{to_name(model, fill='_')}.{prompt.version}-{prompt.short_hash}"
    try:
        return check_reviewer(name)
    except LabelerError as error:
        hint = "" if given is not None else " (name the judge with --judge-name)"
        raise LabelerError(
            f"the judge's name {name!r}: {error.message}{hint}", field="judge-name"
        ) from None


def _check_rater(store: Store, name: str) -> None:
    if store.ratings.raters().get(name) == "human":
        msg = f"{name!r} is a person who rates or grades here; a judge needs another name"
        raise LabelerError(msg, field="judge-name")


def metric_name(metric: str, prompt: Prompt) -> str:
    """The metric the ratings are stored under: relevance is always ``relevance`` (the labels'
    metric); another keeps the spelling given (DeepEval's ``Faithfulness`` stays itself)."""
    return RELEVANCE if prompt.kind.metric == RELEVANCE else metric.strip()


def settle_metric(store: Store, name: str, prompt: Prompt) -> MetricSettled:
    """The metric's scale as an import would settle it (stored, else the prompt's own), which
    must hold every grade the prompt can give."""
    settled = settle_scale(
        name,
        declared=None,
        threshold=None,
        stored=store.ratings.metrics().get(name),
        hint=MetricHint(scale=prompt.kind.scale),
        values={},
        path=RUN_PATH,
    )
    misfits = [g for g in prompt.kind.grades if settled.scale.check(g) is not None]
    if misfits:
        msg = (
            f"{name} is stored as {settled.scale.spec}, which cannot hold the grades"
            f" {', '.join(map(str, prompt.kind.grades))} this prompt gives"
        )
        raise LabelerError(msg, field="metric")
    return settled


# what to judge --------------------------------------------------------------------------------


def question_ids(store: Store, selection: Selection) -> list[str]:
    if selection.questions:
        known = store.questions.existing_ids(selection.questions)
        unknown = [q for q in selection.questions if q not in known]
        if unknown:
            msg = f"unknown question {unknown[0]!r}" + (
                f" (and {len(unknown) - 1} more)" if len(unknown) > 1 else ""
            )
            raise NotFoundError(msg, field="questions")
        return list(dict.fromkeys(selection.questions))
    if selection.tag is not None or selection.everything:
        return store.questions.accepted_ids(tag=selection.tag)
    msg = "choose the questions: --questions Q..., --tag T or --all"
    raise LabelerError(msg, field="questions")


def judged(entry: PoolEntry, depth: int | None) -> bool:
    """A pool entry a judge rates: within ``depth`` of a run, or added by a search (BM25 or
    dense), a reviewer or a generator."""
    return any(
        s.kind in JUDGED_SOURCES
        and (s.kind != "run" or depth is None or (s.rank is not None and s.rank <= depth))
        for s in entry.sources
    )


def cache_key(prompt: Prompt, model: str, question: str, text: str) -> str:
    """SHA-256 of the prompt's hash, the model, the question's text and the rated text, each
    prefixed by its length (so no two different tuples share a key)."""
    digest = hashlib.sha256()
    for part in (prompt.hash, model, question, text):
        data = part.encode("utf-8")
        digest.update(len(data).to_bytes(8, "big"))
        digest.update(data)
    return digest.hexdigest()


def relevance_work(
    store: Store, ids: Sequence[str], options: RunOptions, chunking: str
) -> list[Work]:
    keys = store.ratings.chunk_item_keys(chunking, ids)
    model, prompt = options.endpoint.model, options.prompt
    pools = []
    for question_id in ids:
        question = store.questions.get(question_id)
        entries = [e for e in pool(store, question, chunking) if judged(e, options.depth)]
        pools.append((question, entries))
    chunks = store.corpus.get_chunks(
        chunking, list(dict.fromkeys(e.chunk_id for _, entries in pools for e in entries))
    )
    work = []
    for question, entries in pools:
        asked = prompt_text(question)  # a turn with its conversation and rewrite
        for entry in entries:
            chunk = chunks.get(entry.chunk_id)
            if chunk is None:
                continue
            key = keys.get((question.id, chunk.id)) or chunk_key(question.id, chunk.id)
            work.append(
                Work(
                    Item(key, question=question.id, chunk_id=chunk.id),
                    question.id,
                    chunk.id,
                    (("question", asked), ("passage", chunk.text)),
                    cache_key(prompt, model, asked, chunk.text),
                )
            )
    return work


def answer_work(
    store: Store, ids: Sequence[str] | None, options: RunOptions, skipped: dict[str, int]
) -> list[Work]:
    model, prompt = options.endpoint.model, options.prompt
    work = []
    rows = store.ratings.answer_items(ids)
    questions = store.questions.many(list({r["question_id"] for r in rows if r["question_id"]}))
    for row in rows:
        if not row["contexts"]:
            reason = "answers without their passages"
            skipped[reason] = skipped.get(reason, 0) + 1
            continue
        known = questions.get(row["question_id"])
        question = prompt_text(known) if known is not None else row["question"] or ""
        rated = json.dumps([row["answer"], row["contexts"]], ensure_ascii=False)
        values = (
            ("question", question),
            ("answer", row["answer"]),
            ("contexts", contexts_text(row["contexts"])),
        )
        work.append(
            Work(
                Item(row["key"]),
                row["question_id"],
                None,
                values,
                cache_key(prompt, model, question, rated),
            )
        )
    return work


def plan_run(store: Store, options: RunOptions) -> Plan:
    """Everything a run decides before its first call (``--dry-run`` stops here)."""
    chunking = options.chunking or store.corpus.current_chunking()
    if options.depth is not None and options.depth < 1:
        raise LabelerError(f"must be 1 or more, got {options.depth}", field="depth")
    if options.max_calls is not None and options.max_calls < 0:
        raise LabelerError(f"must be 0 or more, got {options.max_calls}", field="max-calls")
    name = judge_name(options.endpoint.model, options.prompt, options.judge_name)
    _check_rater(store, name)
    metric = settle_metric(store, metric_name(options.metric, options.prompt), options.prompt)
    ids = question_ids(store, options.selection)
    skipped: dict[str, int] = {}
    if options.prompt.kind.rates == "chunk":
        work = relevance_work(store, ids, options, chunking)
    else:
        everything = options.selection.everything and not options.selection.tag
        work = answer_work(store, None if everything else ids, options, skipped)
    rated = store.judge_calls.rated(metric.name, name)
    todo = [
        w for w in work if not (w.item.key in rated and rated[w.item.key] in (None, w.cache_key))
    ]
    answers = store.judge_calls.cached([w.cache_key for w in todo])
    cached = tuple(
        (w, answers[w.cache_key].call, answers[w.cache_key].grade, answers[w.cache_key].reason)
        for w in todo
        if w.cache_key in answers
    )
    calls = [w for w in todo if w.cache_key not in answers]
    cap = len(calls) if options.max_calls is None else options.max_calls
    return Plan(
        judge=name,
        metric=metric,
        pairs=len(work),
        rated=len(work) - len(todo),
        cached=cached,
        calls=tuple(calls[:cap]),
        left=max(len(calls) - cap, 0),
        skipped=skipped,
    )


# calling ----------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Outcome:
    work: Work
    verdict: Verdict | None
    reply: Reply | None
    error: str | None
    tries: int


def call_one(client: ChatClient, work: Work, prompt: Prompt, stop) -> Outcome:
    """One pair, on a worker thread: the prompt filled, the call, and the strict reading of
    its answer."""
    try:
        reply = client.complete(prompt.render(dict(work.values)), stop=stop)
    except CallFailed as failure:
        return Outcome(work, None, None, failure.reason, failure.tries)
    if reply.problem is not None:
        return Outcome(work, None, reply, reply.problem, reply.tries)
    try:
        verdict = parse_answer(reply.text, prompt.kind.grades)
    except BadAnswer as bad:
        return Outcome(work, None, reply, str(bad), reply.tries)
    return Outcome(work, verdict, reply, None, reply.tries)


# writing ----------------------------------------------------------------------------------------


class Writer:
    """Writes finished calls and their ratings on the store's own thread."""

    def __init__(self, store: Store, plan: Plan, options: RunOptions, chunking: str) -> None:
        self.store = store
        self.plan = plan
        self.options = options
        self.chunking = chunking
        self.source = f"judge run: {options.endpoint.host}"

    def _ratings(self, rows: Iterable[tuple[Work, int, str | None]]) -> int:
        """Stage and merge (work, grade, reason) as this judge's ratings; returns how many
        were added or changed. Inside the caller's transaction."""
        ratings = [
            Rating(
                line=line,
                item=work.item,
                metric=self.plan.metric.name,
                rater=self.plan.judge,
                kind="model",
                value=float(grade),
                rationale=reason,
            )
            for line, (work, grade, reason) in enumerate(rows, start=1)
        ]
        if not ratings:
            return 0
        stage_ratings(self.store, ratings, RUN_PATH)
        _, counts = merge_ratings(
            self.store,
            RUN_PATH,
            [self.plan.metric],
            chunking=self.chunking,
            source=self.source,
            action="judge run",
        )
        return counts["added"] + counts["updated"]

    def cached(self, rows: Sequence[tuple[Work, int, int, str | None]]) -> int:
        written = 0
        for start in range(0, len(rows), CACHED_BATCH):
            batch = rows[start : start + CACHED_BATCH]
            with self.store.write():
                written += self._ratings((w, grade, reason) for w, _, grade, reason in batch)
                self.store.judge_calls.link(
                    self.plan.metric.name,
                    self.plan.judge,
                    [(w.item.key, call) for w, call, _, _ in batch],
                )
        return written

    def outcomes(self, outcomes: Sequence[Outcome]) -> int:
        endpoint, prompt, stamp = self.options.endpoint, self.options.prompt, now()
        records = [
            CallRecord(
                cache_key=o.work.cache_key,
                metric=self.plan.metric.name,
                judge=self.plan.judge,
                model=endpoint.model,
                prompt_version=prompt.version,
                prompt_hash=prompt.hash,
                host=endpoint.host,
                item_key=o.work.item.key,
                question_id=o.work.question_id,
                chunk_id=o.work.chunk_id,
                grade=None if o.verdict is None else o.verdict.grade,
                reason=None if o.verdict is None else o.verdict.reason,
                raw=None if o.reply is None else o.reply.text,
                error=o.error,
                tokens_in=None if o.reply is None else o.reply.tokens_in,
                tokens_out=None if o.reply is None else o.reply.tokens_out,
                latency_ms=None if o.reply is None else round(o.reply.latency_ms, 3),
                tries=o.tries,
                at=stamp,
            )
            for o in outcomes
        ]
        with self.store.write():
            ids = self.store.judge_calls.record(records)
            answered = [(o, i) for o, i in zip(outcomes, ids, strict=True) if o.verdict]
            written = self._ratings(
                (o.work, o.verdict.grade, o.verdict.reason) for o, _ in answered
            )
            self.store.judge_calls.link(
                self.plan.metric.name,
                self.plan.judge,
                [(o.work.item.key, i) for o, i in answered],
            )
        return written


# the run ------------------------------------------------------------------------------------


def _tally(progress: RunProgress, outcomes: Sequence[Outcome]) -> None:
    for o in outcomes:
        progress.calls += 1
        progress.failed += o.verdict is None
        progress.retried += o.tries - 1
        if o.reply is not None:
            progress.tokens_in += o.reply.tokens_in or 0
            progress.tokens_out += o.reply.tokens_out or 0


def run_judge(
    store: Store,
    options: RunOptions,
    *,
    plan: Plan | None = None,
    on_progress: Callable[[RunProgress], None] | None = None,
    client: ChatClient | None = None,
    actor: str | None = None,
) -> RunSummary:
    """Judge what ``plan_run`` found to judge (see the module docstring); returns what was
    done. A KeyboardInterrupt still writes every call that had finished, then propagates
    with the summary on it (``error.summary``). Running a judge is a lead's: ``actor``, when
    given, must have the right to run the judge, checked before any call is made."""
    if actor is not None:
        require(store, actor, Right.JUDGE)
    chunking = options.chunking or store.corpus.current_chunking()
    plan = plan if plan is not None else plan_run(store, options)
    if options.concurrency < 1:
        raise LabelerError(f"must be 1 or more, got {options.concurrency}", field="concurrency")
    progress = RunProgress(planned=len(plan.calls))
    report = on_progress or (lambda _: None)
    writer = Writer(store, plan, options, chunking)
    declare_metric(store, plan.metric)
    progress.cached = plan.rated + len(plan.cached)
    progress.written += writer.cached(plan.cached)
    report(progress)
    interrupted = False
    if plan.calls:
        own = client is None
        client = client or ChatClient(options.endpoint)
        try:
            _call_all(writer, client, plan, options, progress, report)
        except KeyboardInterrupt as stop:
            interrupted = True
            stop.summary = _summary(plan, progress, interrupted=True)  # type: ignore[attr-defined]
            raise
        finally:
            if own:
                client.close()
    return _summary(plan, progress, interrupted=interrupted)


def _summary(plan: Plan, progress: RunProgress, *, interrupted: bool) -> RunSummary:
    return RunSummary(
        judge=plan.judge,
        metric=plan.metric.name,
        calls=progress.calls,
        cached=progress.cached,
        retried=progress.retried,
        failed=progress.failed,
        ratings_written=progress.written,
        tokens_in=progress.tokens_in,
        tokens_out=progress.tokens_out,
        seconds=progress.seconds,
        left=plan.left + len(plan.calls) - progress.calls,
        interrupted=interrupted,
    )


def _call_all(
    writer: Writer,
    client: ChatClient,
    plan: Plan,
    options: RunOptions,
    progress: RunProgress,
    report: Callable[[RunProgress], None],
) -> None:
    """Keep ``concurrency`` calls in flight; write what finished in one short transaction, at
    once when the last write is ``FLUSH_S`` old, else when it is (at most ``FLUSH_N`` at a time).

    A write costs a few milliseconds whatever it holds: under a slow endpoint every answer is
    written alone as it comes, and under a fast one a batch takes what arrived over a fifth of
    a second. On a refusal of the endpoint, or Ctrl-C, what finished is written, the calls not
    started are dropped, and the ones in flight are told to stop at their next try.
    """
    stop = threading.Event()
    queue = iter(plan.calls)
    in_flight: dict[Future, Work] = {}
    pending: list[Outcome] = []
    executor = ThreadPoolExecutor(max_workers=options.concurrency, thread_name_prefix="judge")

    def submit() -> None:
        work = next(queue, None)
        if work is not None and not stop.is_set():
            in_flight[executor.submit(call_one, client, work, options.prompt, stop)] = work

    def flush() -> None:
        if pending:
            progress.written += writer.outcomes(pending)
            _tally(progress, pending)
            pending.clear()

    try:
        for _ in range(options.concurrency):
            submit()
        written = last = time.monotonic() - FLUSH_S
        while in_flight:
            now_ = time.monotonic()
            timeout = max(written + FLUSH_S - now_, 0.0) if pending else TICK_S
            done, _ = wait(in_flight, timeout=timeout, return_when=FIRST_COMPLETED)
            finished, refused = _collect(done, in_flight)
            if refused is None:
                for _ in finished:
                    submit()
            else:
                stop.set()
            pending.extend(finished)
            now_ = time.monotonic()
            due = now_ - written >= FLUSH_S or len(pending) >= FLUSH_N or not in_flight
            if pending and (due or refused):
                flush()
                written = now_
            if refused is not None:
                raise refused
            if now_ - last >= TICK_S:
                report(progress)
                last = now_
    except BaseException:
        # Calls in flight are told to stop (and the client is closed by the caller): a
        # Ctrl-C is not held up by a server that does not answer.
        stop.set()
        executor.shutdown(wait=False, cancel_futures=True)
        finished, _ = _collect([f for f in in_flight if f.done()], in_flight)
        pending.extend(finished)
        flush()
        raise
    executor.shutdown(wait=True)
    report(progress)


def _collect(
    done: Iterable[Future], in_flight: dict[Future, Work]
) -> tuple[list[Outcome], EndpointRefused | None]:
    finished: list[Outcome] = []
    refused: EndpointRefused | None = None
    for future in done:
        in_flight.pop(future, None)
        if future.cancelled():
            continue
        error = future.exception()
        if error is None:
            outcome = future.result()
            if outcome.error != STOPPED:
                finished.append(outcome)
        elif isinstance(error, EndpointRefused):
            refused = refused or error
        else:
            raise error
    return finished, refused


__all__ = [
    "JUDGED_SOURCES",
    "Plan",
    "RunOptions",
    "RunProgress",
    "RunSummary",
    "Selection",
    "cache_key",
    "judge_name",
    "plan_run",
    "run_judge",
]
