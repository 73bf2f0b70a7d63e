# ruff: noqa: E501
"""Fernleaf support conversations: chats a partner, an agent and an employee had with a support
assistant, where each follow-up only means something after the turns before it ("And in the
sandbox?", "She's a Plus member, does that change anything?").

build_demo.py writes them as an MTRAG task file (data/demo/conversations/tasks.jsonl, one line
per turn, IBM's shape with its quirks: the turn's tags at the top level and in the user
message's enrichments, a bare NaN for a missing tag) and MTRAG's rewrite queries
(rewrites.jsonl), which `labeler demo` imports with `labeler import mtrag`.

Each turn: what the user said, the assistant's reply (the turn's reference answer, and the next
turn's history), a standalone rewrite (MTRAG's; a few follow-ups have none, so the grading page
shows its default search, the turn with the previous one), the turn's MTRAG tags, and
`relevant` as for the questions: (document id, exact quote, grade). `graded_by` names the
reviewer whose relevance feedback the file carries for the turn: the chunks graded 2 as "yes",
and the hybrid run's best chunks that do not answer it as "no" (the hard negatives a reviewer
meets); the demo then grades the rest of that reviewer's pool from the ground truth, as for
the questions. Turns without `graded_by` wait in the grading queue.
"""

CONVERSATIONS = [
    {
        "id": "fernleaf-returns",
        "turns": [
            {
                "user": "A customer wants to send back a frying pan she has already cooked with. Can she?",
                "assistant": "Not unless it is faulty: items that show signs of use, such as cookware that has been heated, cannot be returned.",
                "question_type": ["Factoid"],
                "relevant": [
                    (
                        "handbook-returns-policy",
                        "Items that show signs of use, such as cookware that has been heated or a knife that has been sharpened, cannot be returned unless they are faulty.",
                        2,
                    )
                ],
                "graded_by": "maria",
            },
            {
                "user": "What if it's still in its box?",
                "assistant": "Then it is an unopened item: she can return it within 30 days of delivery for a full refund.",
                "rewrite": "Can a customer return a frying pan that is still unopened in its box?",
                "question_type": ["Factoid"],
                "multi_turn": "Follow-up",
                "relevant": [
                    (
                        "handbook-returns-policy",
                        "Customers can return unopened items within 30 days of delivery for a full refund of the item price.",
                        2,
                    )
                ],
                "graded_by": "maria",
            },
            {
                "user": "She's a Plus member, does that change anything?",
                "assistant": "Yes: Fernleaf Plus members have 60 days to return unopened items instead of 30.",
                "rewrite": "Does Fernleaf Plus membership change how long a customer has to return an unopened item?",
                "question_type": ["Factoid"],
                "multi_turn": "Follow-up",
                "relevant": [
                    (
                        "handbook-fernleaf-plus",
                        "A 60-day returns window for unopened items, instead of 30 days.",
                        2,
                    )
                ],
            },
            {
                "user": "And who pays to post it back?",
                "assistant": "Fernleaf does: Plus members never pay return postage, even for a change of mind.",
                "rewrite": "Who pays the return postage when a Fernleaf Plus member returns an item?",
                "question_type": ["Factoid"],
                "multi_turn": "Follow-up",
                "relevant": [
                    (
                        "handbook-return-postage",
                        "Fernleaf Plus members never pay return postage",
                        2,
                    ),
                    (
                        "handbook-fernleaf-plus",
                        "Free return postage on every return, including change-of-mind returns.",
                        2,
                    ),
                ],
            },
        ],
    },
    {
        "id": "fernleaf-rate-limits",
        "turns": [
            {
                "user": "What's the rate limit on the Orders API?",
                "assistant": "In production each API key may send 100 requests per minute.",
                "question_type": ["Factoid"],
                "relevant": [
                    (
                        "orders-api-rate-limits",
                        "In production, each API key may send 100 requests per minute.",
                        2,
                    )
                ],
                "graded_by": "tom",
            },
            {
                "user": "And in the sandbox?",
                "assistant": "The sandbox is tighter: 25 requests per minute per test key.",
                "rewrite": "What is the Orders API rate limit in the sandbox?",
                "question_type": ["Factoid"],
                "multi_turn": "Follow-up",
                "relevant": [
                    (
                        "orders-api-rate-limits",
                        "Each test key may send 25 requests per minute, and bulk exports",
                        2,
                    ),
                    (
                        "orders-api-sandbox",
                        "Each test key may send 25 requests per minute, a quarter of the production limit.",
                        2,
                    ),
                ],
                "graded_by": "tom",
            },
            {
                "user": "What happens if I go over it?",
                "assistant": "Requests over the limit get status 429 Too Many Requests, with a Retry-After header.",
                "rewrite": "What happens when a client sends more requests than the Orders API rate limit allows?",
                "question_type": ["Explanation"],
                "multi_turn": "Follow-up",
                "relevant": [
                    (
                        "orders-api-rate-limits",
                        "Requests beyond that receive status `429 Too Many Requests`",
                        2,
                    ),
                    (
                        "orders-api-error-codes",
                        "`rate_limit_exceeded`: wait for `Retry-After` seconds.",
                        1,
                    ),
                ],
                "graded_by": "tom",
            },
            {
                "user": "How long should I wait before trying again?",
                "assistant": "As many seconds as the Retry-After header says; the SDKs do it for you.",
                "rewrite": "How long should a client wait before retrying after a 429 response from the Orders API?",
                "question_type": ["Factoid"],
                "multi_turn": "Follow-up",
                "relevant": [
                    (
                        "orders-api-rate-limits",
                        "wait for the number of seconds given in `Retry-After`, then retry the same request",
                        2,
                    ),
                    ("orders-api-sdks", "They honour `Retry-After` when the response has one", 1),
                ],
            },
            {
                "user": "Can I get it raised for a load test?",
                "assistant": "Not in the sandbox itself, but the integrations team can give a temporary raise for a performance test.",
                "rewrite": "Can the sandbox rate limit of the Orders API be raised for a load test?",
                "question_type": ["Factoid"],
                "multi_turn": "Follow-up",
                "relevant": [
                    (
                        "orders-api-rate-limits",
                        "contact the integrations team if you need a temporary raise for a performance test",
                        2,
                    ),
                    (
                        "orders-api-rate-limits",
                        "Raises are reviewed within five working days and are not available in the sandbox.",
                        1,
                    ),
                ],
            },
        ],
    },
    {
        "id": "fernleaf-annual-leave",
        "turns": [
            {
                "user": "How many days of holiday do I get?",
                "assistant": "25 days a year, plus the eight bank holidays in England.",
                "question_type": ["Factoid"],
                "relevant": [
                    (
                        "handbook-annual-leave",
                        "Full-time employees receive 25 days of annual leave a year, plus the eight bank holidays in England.",
                        2,
                    )
                ],
            },
            {
                "user": "Can I carry some over to next year?",
                "assistant": "Up to five days, which you must take by 31 March.",
                "rewrite": "Can unused annual leave be carried over to the next leave year?",
                "question_type": ["Factoid"],
                "multi_turn": "Follow-up",
                "relevant": [
                    (
                        "handbook-annual-leave",
                        "Up to five unused days can be carried into the next leave year.",
                        2,
                    )
                ],
            },
            {
                "user": "What if I couldn't take them because I was off sick?",
                "assistant": "Then they are carried over in full, and the March deadline does not apply.",
                "question_type": ["Explanation"],
                "multi_turn": "Follow-up",
                "relevant": [
                    (
                        "handbook-annual-leave",
                        "Leave that could not be taken because of sickness or family leave is carried over in full",
                        2,
                    )
                ],
            },
        ],
    },
    {
        "id": "fernleaf-gift-card",
        "turns": [
            {
                "user": "Can I swap a gift card for cash?",
                "assistant": "No, gift cards cannot be exchanged for cash or refunded once sold.",
                "question_type": ["Factoid"],
                "relevant": [
                    (
                        "handbook-gift-cards",
                        "Gift cards cannot be exchanged for cash, returned or refunded once sold",
                        2,
                    )
                ],
                "graded_by": "maria",
            },
            {
                "user": "I only bought it yesterday and haven't used it yet.",
                "assistant": "Then you can still cancel it: an unused gift card can be cancelled within 14 days of purchase for a full refund.",
                "rewrite": "Can an unused gift card bought yesterday be cancelled and refunded?",
                "question_type": ["Non-Question"],
                "multi_turn": "Clarification",
                "relevant": [
                    (
                        "handbook-gift-cards",
                        "an unused gift card can be cancelled within 14 days of purchase under the usual right to cancel",
                        2,
                    )
                ],
            },
            {
                "user": "Does it earn loyalty points?",
                "assistant": "I'm sorry, I can't find anything about loyalty points.",
                "rewrite": "Do Fernleaf gift cards earn loyalty points?",
                "question_type": ["Factoid"],
                "multi_turn": "Follow-up",
                "relevant": [],
            },
        ],
    },
]
