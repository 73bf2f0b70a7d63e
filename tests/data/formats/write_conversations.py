"""How ``ragas/multi_turn.*`` and ``deepeval/conversational_goldens_4.*`` were written: one
conversation (made up for this project, over the worked-example corpus of tests/conftest.py)
given to Ragas' and DeepEval's own writers, so the files have the shapes those libraries give
them. Not a test: run once, offline, with the interop extra installed (ragas 0.4.3, deepeval
4.3.1):

    DEEPEVAL_TELEMETRY_OPT_OUT=YES RAGAS_DO_NOT_TRACK=true \
        python tests/data/formats/write_conversations.py
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
RATE = (
    "Each API key may send 100 requests per minute. Extra requests return status 429 with a"
    " Retry-After header."
)
ERRORS = "404 means the order does not exist. 429 means too many requests: wait and retry."


def ragas() -> None:
    from ragas import EvaluationDataset
    from ragas.dataset_schema import MultiTurnSample
    from ragas.messages import AIMessage, HumanMessage, ToolCall, ToolMessage

    sample = MultiTurnSample(
        user_input=[
            HumanMessage(content="How many requests may one API key send?"),
            AIMessage(
                content="Let me look that up.",
                tool_calls=[ToolCall(name="search_docs", args={"query": "rate limit"})],
            ),
            ToolMessage(content=RATE),
            AIMessage(content="100 requests per minute per API key."),
            HumanMessage(content="And what happens to the requests over that?"),
            AIMessage(content="They get status 429."),
            HumanMessage(content="How long should I wait then?"),
        ],
        reference="As long as the Retry-After header says.",
        reference_topics=["rate limits"],
    )
    dataset = EvaluationDataset(samples=[sample])
    dataset.to_jsonl(str(HERE / "ragas" / "multi_turn.jsonl"))
    dataset.to_csv(str(HERE / "ragas" / "multi_turn.csv"))


def deepeval() -> None:
    from deepeval.dataset import ConversationalGolden, EvaluationDataset
    from deepeval.test_case import Turn

    golden = ConversationalGolden(
        scenario="A marketplace partner hits the Orders API's rate limit",
        expected_outcome="The partner knows the limit and how to back off",
        context=[RATE],
        turns=[
            Turn(role="user", content="How many requests may one API key send?"),
            Turn(role="assistant", content="100 requests per minute.", retrieval_context=[RATE]),
            Turn(role="user", content="What does a 429 mean?"),
            Turn(
                role="assistant",
                content="Too many requests: wait and retry.",
                retrieval_context=[ERRORS, RATE],
            ),
            Turn(role="user", content="How long should I wait then?"),
        ],
    )
    dataset = EvaluationDataset(goldens=[golden])
    with tempfile.TemporaryDirectory() as folder:
        for kind in ("json", "csv", "jsonl"):
            written = dataset.save_as(kind, folder, file_name="conversational_goldens_4")
            shutil.copy(written, HERE / "deepeval" / Path(written).name)


if __name__ == "__main__":
    ragas()
    deepeval()
