"""Keeping the flags of generated questions current in the database, and the queue order
they give.

Triggers note every question whose text, reference answer or contexts changed; ``ensure_flags``
recomputes just those (and their duplicate pairs against every question), or everything when
the settings or the current chunking changed. The page and ``labeler review list`` call it
first, so an import from the CLI is flagged the next time anyone looks.
"""

from __future__ import annotations

import json
import time
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from labeler import flags
from labeler.conversations import standalone_text
from labeler.flags import FLAG_NAMES, Context, FlagConfig, FlagInput
from labeler.importers.contexts import strip_hop
from labeler.models import Question, Turn
from labeler.store import Store

CONFIG_KEY = "review:flag_config"
SIGNATURE_KEY = "review:flags_signature"
# Bump when a flag's definition changes, so stored flags are recomputed (2: a turn of a
# conversation is compared as read with the conversation).
FLAGS_VERSION = 2
# Up to this many changed questions, each one's duplicates are found against every question
# (a few milliseconds each); more, and all pairs are found afresh by blocking.
INCREMENTAL_UP_TO = 200


def load_config(store: Store) -> FlagConfig:
    stored = store.get_setting(CONFIG_KEY)
    return FlagConfig.from_dict(json.loads(stored)) if stored else FlagConfig()


def save_config(store: Store, **changes: object) -> FlagConfig:
    """Change some thresholds (checked: a bad value raises and changes nothing); the flags
    are recomputed the next time they are read."""
    current = load_config(store).as_dict()
    config = FlagConfig.from_dict(
        {**current, **{k: v for k, v in changes.items() if v is not None}}
    )
    store.set_setting(CONFIG_KEY, json.dumps(config.as_dict(), sort_keys=True))
    return config


@dataclass(frozen=True, slots=True)
class FlagRefresh:
    """What ``ensure_flags`` did: how many questions it flagged afresh, whether it redid all."""

    questions: int = 0
    full: bool = False
    seconds: float = 0.0


def queue_key(question_id: str, names: Iterable[str], cluster: str | None) -> str:
    """The queue's order: duplicate clusters first (members together), then questions with
    other flags grouped by their first flag, then the rest; by id within each."""
    if cluster is not None:
        return f"0|{cluster}|{question_id}"
    order = sorted(names, key=lambda n: FLAG_NAMES.index(n) if n in FLAG_NAMES else 99)
    if order:
        first = FLAG_NAMES.index(order[0]) if order[0] in FLAG_NAMES else 99
        return f"1|{first:02d}|{'+'.join(order)}|{question_id}"
    return f"2||{question_id}"


def _input(row: dict, chunking: str) -> FlagInput:
    contexts = tuple(
        Context(strip_hop(text), found=bool(ids) and where == chunking)
        for text, where, ids in row["contexts"]
    )
    return FlagInput(row["id"], row["text"], row["reference_answer"], contexts)


def ensure_flags(
    store: Store, *, config: FlagConfig | None = None, check_queue: bool = True
) -> FlagRefresh:
    """Bring the flags, duplicate pairs and queue order up to date; cheap when nothing changed
    (a few small queries). ``check_queue`` also counts the generated questions against the
    queue (20 ms at 50,000), to catch what the triggers could not see; the review page does
    it once per page load, not after every key."""
    started = time.perf_counter()
    config = config or load_config(store)
    chunking = store.corpus.current_chunking()
    signature = json.dumps(
        {"config": config.as_dict(), "chunking": chunking, "version": FLAGS_VERSION},
        sort_keys=True,
    )
    upto, dirty = store.flags.dirty_questions()
    full = store.get_setting(SIGNATURE_KEY) != signature
    if not full and not dirty:
        if not check_queue or not store.flags.queue_out_of_step():
            return FlagRefresh()
        full = True  # a rebuilt table lost its triggers, or a bug: start afresh
    generated = store.flags.generated_ids()
    if not full:
        # Whatever the queue lacks or holds in excess must be among the changed questions.
        queued = set(store.flags.queue_rows())
        full = not (generated ^ queued) <= set(dirty)
    targets = None if full else [q for q in dirty if q in generated]
    found = {}
    # Questions that share a context come together, so each context is read once.
    items = sorted(
        (_input(row, chunking) for row in store.flags.flag_inputs(targets)),
        key=lambda item: item.contexts[0].text if item.contexts else "",
    )
    for item in items:
        found[item.id] = [
            (f.name, f.reason, f.related)
            for f in flags.question_flags(item, config, chunking=chunking)
        ]
    texts = _standalone(store.flags.every_question_text(), store.conversations.all())
    threshold = config.duplicate_threshold
    everything = full or len(dirty) > INCREMENTAL_UP_TO
    if everything:
        pairs = flags.duplicate_pairs(texts, threshold=threshold)
    else:
        pairs = sorted(
            {
                p
                for q in dirty
                if q in texts
                for p in flags.duplicates_of(q, texts, threshold=threshold)
            }
        )
    with store.write():
        if store.get_setting(SIGNATURE_KEY) == signature and not store.flags.dirty_questions()[1]:
            return FlagRefresh()  # another reviewer's page did it while this one computed
        if full:
            store.flags.clear_all_flags()
        else:
            gone = {q: [] for q in dirty if q not in generated}
            store.flags.replace_flags(gone, keep="duplicate")
        store.flags.replace_flags(found, keep="duplicate")
        store.flags.replace_duplicate_pairs(None if everything else dirty, pairs)
        _refresh_clusters(store, generated)
        store.flags.clear_dirty(upto)
        store.set_setting(SIGNATURE_KEY, signature)
    return FlagRefresh(len(found), full, time.perf_counter() - started)


def _standalone(texts: dict[str, str], turns: dict[str, Turn]) -> dict[str, str]:
    """Each question's text as duplicates are found among: a turn of a conversation read with
    what it needs of the conversation (``labeler.conversations.standalone_text``)."""
    for question_id, turn in turns.items():
        if question_id in texts:
            question = Question(question_id, texts[question_id], turn=turn)
            texts[question_id] = standalone_text(question)
    return texts


def _refresh_clusters(store: Store, generated: set[str]) -> None:
    """Duplicate flags and queue keys from the stored pairs; only what changed is written."""
    pairs = store.flags.duplicate_pairs()
    cluster_of = flags.clusters(pairs)
    scores: dict[str, dict[str, float]] = defaultdict(dict)
    for a, b, score in pairs:
        scores[a][b] = score
        scores[b][a] = score
    wanted = {}
    for question_id in generated:
        if question_id in cluster_of:
            flag = flags.duplicate_flag(question_id, cluster_of[question_id], scores[question_id])
            wanted[question_id] = (flag.reason, flag.related)
    stored = store.flags.duplicate_flags()
    store.flags.set_duplicate_flags(
        [q for q in stored if q not in wanted],
        {q: v for q, v in wanted.items() if stored.get(q) != v},
    )
    names = store.flags.flag_names()
    old = store.flags.queue_rows()
    rows = {}
    for question_id in generated:
        cluster = cluster_of[question_id][0] if question_id in cluster_of else None
        row = (queue_key(question_id, names.get(question_id, ()), cluster), cluster)
        if old.get(question_id) != row:
            rows[question_id] = row
    store.flags.set_queue_rows(rows, [q for q in old if q not in generated])


__all__ = [
    "FLAGS_VERSION",
    "FlagRefresh",
    "ensure_flags",
    "load_config",
    "queue_key",
    "save_config",
]
