"""The store: the only module that writes SQL. One ``Store`` per thread (Streamlit: per rerun).

Split by table family; ``Store`` joins them. Open it with a path: the schema is created or
migrated on the spot, WAL is on, and writers wait on a busy timeout instead of failing.
"""

from labeler.store.corpus import CorpusStore
from labeler.store.flags import FlagStore, QueueFilter
from labeler.store.highlight import Span, match_spans
from labeler.store.labels import EVERYONE, LabelStore, check_reviewer
from labeler.store.plans import PlanStore
from labeler.store.pool import PoolStore
from labeler.store.questions import QuestionStore
from labeler.store.ratings import RatingStore
from labeler.store.remap import RemapStore
from labeler.store.review import ReviewStore
from labeler.store.runs import RunStore
from labeler.store.search import SearchHit, SearchStore, fts_terms
from labeler.store.versions import VersionStore


class Store(
    CorpusStore,
    SearchStore,
    QuestionStore,
    RunStore,
    LabelStore,
    PoolStore,
    VersionStore,
    RatingStore,
    PlanStore,
    RemapStore,
    ReviewStore,
    FlagStore,
):
    """The database of one labelling project."""

    def status(self) -> dict:
        """What is in the database, for ``labeler status`` and the app's sidebar."""
        chunking = self.current_chunking()
        return {
            "database": str(self.path),
            "current_chunking": chunking,
            "chunkings": {c["name"]: c["chunks"] for c in self.chunkings()},
            "documents": int(self.scalar("SELECT count(*) FROM documents")),
            "questions": self.count_questions(),
            "questions_by_status": dict(
                self.conn.execute(
                    "SELECT review_status, count(*) FROM questions GROUP BY review_status"
                ).fetchall()
            ),
            "runs": {
                r["name"]: {"results": r["results"], "questions": r["questions"]}
                for r in self.runs()
            },
            "labels": self.label_counts(chunking),
            "fully_graded": self.progress_counts(chunking, None)["everyone"],
            "questions_accepted": self.progress_counts(chunking, None)["total"],
        }


__all__ = [
    "EVERYONE",
    "QueueFilter",
    "SearchHit",
    "Span",
    "Store",
    "check_reviewer",
    "fts_terms",
    "match_spans",
]
