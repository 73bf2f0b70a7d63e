"""Which questions the two demo reviewers graded, and where they disagreed.

LABEL_PLAN: question id -> the reviewers who graded it. About half of the questions are labelled,
most by one reviewer, eight by both (for the agreement views), and a few of the labelled ones
cannot be answered from the documents (the reviewer marks them unanswerable).

build_demo.py derives each reviewer's grades from the ground truth over the pooled candidates:
relevant chunks get their grade, every other chunk in the top 5 of any run gets 0 (those zeros
are the hard negatives). DISAGREEMENTS then overrides single grades for one reviewer, on
questions both graded, as a reviewer would who read the passage differently.
"""

LABEL_PLAN = {
    "q001": ("maria",),
    "q002": ("maria", "tom"),
    "q003": ("tom",),
    "q004": ("maria", "tom"),
    "q006": ("tom",),
    "q007": ("maria",),
    "q009": ("maria",),
    "q010": ("tom",),
    "q011": ("maria", "tom"),
    "q013": ("tom",),
    "q015": ("maria",),
    "q016": ("maria", "tom"),
    "q019": ("tom",),
    "q021": ("maria",),
    "q023": ("maria", "tom"),
    "q025": ("tom",),
    "q026": ("maria",),
    "q027": ("maria",),
    "q029": ("tom",),
    "q030": ("maria", "tom"),
    "q032": ("maria",),
    "q036": ("tom",),
    "q039": ("maria",),
    "q042": ("maria", "tom"),
    "q047": ("maria",),
    "q051": ("maria",),
    "q056": ("tom",),
    "q068": ("tom",),
    "q070": ("maria",),
    "q073": ("maria", "tom"),
    "q075": ("maria",),
    "q083": ("tom",),
    "q087": ("tom",),
}

# Each entry: on `question`, `reviewer` gives the chunk holding `quote` (in document `doc`) the
# grade `grade` instead of the ground-truth grade the other reviewer gives. Only 1 <-> 2.
DISAGREEMENTS = [
    {  # tom: the postage chunk answers only half of a two-part question
        "question": "q004",
        "reviewer": "tom",
        "grade": 1,
        "doc": "handbook-return-postage",
        "quote": "The customer pays for return postage, unless the item is faulty",
    },
    {  # maria: the header alone does not say how to verify it
        "question": "q011",
        "reviewer": "maria",
        "grade": 1,
        "doc": "orders-api-webhook-signatures",
        "quote": "Each delivery carries a `Fernleaf-Signature` header like this",
    },
    {  # tom: the error-code overview answers "which errors to retry" well enough for him
        "question": "q002",
        "reviewer": "tom",
        "grade": 2,
        "doc": "orders-api-errors",
        "quote": "Retry `429`, `500` and `503` responses",
    },
    {  # maria: the returns-policy bullet on gift cards already says "no"
        "question": "q030",
        "reviewer": "maria",
        "grade": 2,
        "doc": "handbook-returns-policy",
        "quote": "- Gift cards (see the gift card section).",
    },
    {  # tom: the general refunds page only mentions gift cards in passing
        "question": "q073",
        "reviewer": "tom",
        "grade": 1,
        "doc": "handbook-refunds",
        "quote": "Orders paid fully or partly with a gift card are refunded to a gift card",
    },
]

# The work a lead assigned (``labeler assign``), as the Team page shows it: every question a
# reviewer graded was assigned to them (the eight both graded are the overlap), and each was
# given a few more still to grade, two of them to both.
ASSIGNED_TO_DO = {
    "maria": ("q005", "q008", "q012", "q014", "q024", "q028"),
    "tom": ("q017", "q018", "q020", "q022", "q024", "q028"),
}
