"""The metric engine's readers, under the module name round one gave them: files in
``labeler.metrics.files``, versions in ``labeler.metrics.testsets``, DataFrames in
``labeler.metrics.frames``."""

from __future__ import annotations

from labeler.metrics.files import read_qrels, read_questions, read_run
from labeler.metrics.frames import qrels_from_dataframe, run_from_dataframe
from labeler.metrics.testsets import TestSet, read_testset
from labeler.models import Question as QuestionInfo

__all__ = [
    "QuestionInfo",
    "TestSet",
    "qrels_from_dataframe",
    "read_qrels",
    "read_questions",
    "read_run",
    "read_testset",
    "run_from_dataframe",
]
