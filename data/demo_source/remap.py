"""The demo's second chunking, ``sentences``: what the corpus looks like after a re-chunking.

The team behind the demo corpus re-chunked it with a smaller, sentence-aware splitter (chunks of
at most ``LIMIT`` characters instead of 700, long paragraphs cut at sentence ends), and in the
same release revised two handbook pages and moved them to the Customer Care space, which gave
them new document ids. build_demo.py applies the revisions below to the documents, writes the
revised ones to data/demo/remap/documents.jsonl and every chunk of the new chunking to
data/demo/remap/chunks.jsonl; `labeler demo` imports both and remaps the reviewers' labels from
``default`` to ``sentences``, so the remap queue opens with real work:

- most labels carry on their own (the same text, or document offsets where nothing changed);
- a passage graded relevant that the smaller chunks split in two waits for a reviewer, with a
  proposal for each piece;
- the revised pages are found through the full-text index (their ids changed), and a passage
  whose wording changed waits with the change highlighted.

Each revision is (kind, text, new text): ``replace`` swaps one exact occurrence of the text,
``move`` takes the section starting at the heading ``text`` (up to the next ``## `` heading)
and puts it just before the heading ``new text``. A text that is missing, or found twice,
stops the build.
"""

CHUNKING = "sentences"
LIMIT = 350

REVISED = {
    "handbook-refunds": {
        "id": "customer-care-refunds",
        "edits": [
            (
                "replace",
                "Refunds always go to the original payment method.",
                "Every refund goes back to the payment method the customer paid with.",
            ),
            (
                "replace",
                "usually on the day it arrives;",
                "usually on the day it arrives (seven days a week since March 2025);",
            ),
            ("move", "## Refund authority", "## Delivery charges"),
        ],
    },
    "handbook-gift-cards": {
        "id": "customer-care-gift-cards",
        "edits": [
            (
                "replace",
                " Physical cards are sent by standard delivery, free of charge.",
                "",
            ),
            (
                "replace",
                "## Expired cards",
                "## Gift cards for businesses\n\nBusinesses can order gift cards in bulk,"
                " with their own message on the envelope, through the trade accounts team.\n\n"
                "## Expired cards",
            ),
            (
                "replace",
                "They are valid for 24 months from the date of purchase;",
                "They are valid for 24 months from the date of purchase, as before;",
            ),
        ],
    },
}
