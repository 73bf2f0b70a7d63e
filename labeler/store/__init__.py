"""The store: the only module that writes SQL. One ``Store`` per thread (Streamlit: per rerun).

A store is one connection (``Database``: WAL, a busy timeout, write transactions that take the
lock up front) and one facet per table family, each a small class with its own SQL::

    store.corpus         documents, chunkings, chunks
    store.search         exact BM25 over the chunks (FTS5)
    store.questions      questions and their tags
    store.conversations  questions that are turns of a conversation
    store.runs           imported retrieval runs
    store.labels         grades, marks, their history, stale labels
    store.progress       who has fully graded which question
    store.adjudications  a lead's settled grades
    store.pools          a question's pooled candidates and stored search pools
    store.versions       the log of exported test-set versions
    store.keys           the project's signing key
    store.ratings        judges' and people's ratings of items, on a metric
    store.judge_calls    the calls ``labeler judge run`` made: its cache, failures, details
    store.plans          spot-check sample plans
    store.remaps         re-chunking: mappings, carried labels, the review queue
    store.reviews        the review of generated questions
    store.flags          advisory flags on generated questions and their queue
    store.accounts       accounts, sessions, failed logins, the log of account changes
    store.assignments    questions assigned to reviewers; the team's figures

A core function takes the facet it needs (``labels: Labels``), or the store when it works across
families in one transaction (``with store.write(): ...``). Open a store with a path: the schema
is created or migrated on the spot.
"""

from __future__ import annotations

from pathlib import Path

from labeler.store.accounts import Accounts
from labeler.store.adjudications import Adjudications
from labeler.store.assignments import Assignments
from labeler.store.base import Database, Facet
from labeler.store.conversations import Conversations
from labeler.store.corpus import Corpus
from labeler.store.flags import Flags, QueueFilter
from labeler.store.highlight import Span, match_spans
from labeler.store.judge_calls import JudgeCalls
from labeler.store.keys import Keys
from labeler.store.labels import EVERYONE, Labels, check_reviewer
from labeler.store.plans import Plans
from labeler.store.pool import Pools
from labeler.store.progress import Progress
from labeler.store.questions import Questions
from labeler.store.ratings import Ratings
from labeler.store.remap import Remaps
from labeler.store.review import Reviews
from labeler.store.runs import Runs
from labeler.store.search import Search, SearchHit, fts_terms
from labeler.store.versions import Versions


class Store(Database):
    """The database of one labelling project: its connection and its facets."""

    def __init__(self, path: str | Path, *, migrate: bool = True, handed: bool = False) -> None:
        super().__init__(path, migrate=migrate, handed=handed)
        self.labels = Labels(self)
        self.corpus = Corpus(self, self.labels)
        self.search = Search(self)
        self.conversations = Conversations(self)
        self.questions = Questions(self, self.labels, self.conversations)
        self.runs = Runs(self)
        self.progress = Progress(self)
        self.adjudications = Adjudications(self)
        self.pools = Pools(self)
        self.versions = Versions(self)
        self.keys = Keys(self)
        self.ratings = Ratings(self)
        self.judge_calls = JudgeCalls(self)
        self.plans = Plans(self)
        self.remaps = Remaps(self)
        self.reviews = Reviews(self)
        self.flags = Flags(self)
        self.accounts = Accounts(self)
        self.assignments = Assignments(self)

    def status(self) -> dict:
        """What the tables hold, for ``labeler status`` and the Data page. The counts of
        questions (being graded, waiting, fully graded, answerable) are defined once in
        ``labeler.grading.counts``, which adds them to this."""
        chunking = self.corpus.current_chunking()
        return {
            "database": str(self.path),
            "current_chunking": chunking,
            "chunkings": {c["name"]: c["chunks"] for c in self.corpus.chunkings()},
            "documents": self.corpus.count_documents(),
            "questions_by_status": self.questions.count_by_status(),
            "runs": {
                r["name"]: {"results": r["results"], "questions": r["questions"]}
                for r in self.runs.all()
            },
            "labels": self.labels.counts(chunking),
        }


FACETS: tuple[str, ...] = (
    "corpus",
    "search",
    "questions",
    "conversations",
    "runs",
    "labels",
    "progress",
    "adjudications",
    "pools",
    "versions",
    "keys",
    "ratings",
    "judge_calls",
    "plans",
    "remaps",
    "reviews",
    "flags",
    "accounts",
    "assignments",
)
"""The store's facets by attribute name, in the order the module docstring lists them."""


__all__ = [
    "EVERYONE",
    "FACETS",
    "Accounts",
    "Adjudications",
    "Assignments",
    "Conversations",
    "Corpus",
    "Database",
    "Facet",
    "Flags",
    "JudgeCalls",
    "Keys",
    "Labels",
    "Plans",
    "Pools",
    "Progress",
    "Questions",
    "QueueFilter",
    "Ratings",
    "Remaps",
    "Reviews",
    "Runs",
    "Search",
    "SearchHit",
    "Span",
    "Store",
    "Versions",
    "check_reviewer",
    "fts_terms",
    "match_spans",
]
