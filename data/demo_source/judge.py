# ruff: noqa: E501
"""What an LLM judge decided on the demo's questions, and what people said about some of it.

Two metrics, as a RAG team would check them:

- ``relevance`` of a question's candidate chunks (0/1/2, the grades reviewers give), judged by
  ``gpt-4o-mini`` on the same pools maria and tom graded (the top 5 of each run plus the
  relevant chunks), and on the pools of a few questions nobody has graded yet. The judge is
  simulated, and honestly so: it gives the ground-truth grade, with a rationale built from the
  chunk, except where RELEVANCE_MISTAKES says otherwise. Those are hand-written and typical of
  LLM judges: mostly lenient on near misses (the sandbox limit for a production question, the
  phone line's Sunday hours for the showroom's), a few too strict. People's side is the
  reviewers' labels, which already hold five disagreements between maria and tom.
- DeepEval's ``Faithfulness`` of answers a RAG system gave to 24 questions, with the contexts
  it retrieved (the chunks holding the relevant passages, then the hybrid run's best, three in
  all), written as a DeepEval test run: a score, DeepEval's pass/fail at 0.7, and a reason.
  Some answers are faithful, some add or change a fact; the judge's scores and reasons are
  hand-written, with a few misses of its own. REVIEWS holds the verdicts maria and tom gave on
  most of them (1 pass, 0 fail): the spot-check the report measures.
"""

RELEVANCE_JUDGE = "gpt-4o-mini"
FAITHFULNESS_JUDGE = "gpt-4o-mini"
FAITHFULNESS_THRESHOLD = 0.7

# Questions nobody has graded whose pools the judge rated too: work for the spot-check.
EXTRA_RELEVANCE_QUESTIONS = ("q008", "q012", "q041", "q063", "q078")

# (question, document, quote from the chunk, the judge's grade, its rationale)
RELEVANCE_MISTAKES = [
    (
        "q001",
        "orders-api-rate-limits",
        "The sandbox is deliberately tighter.",
        2,
        "**Relevant (2).** The passage states the per-key limit directly: each key may send 25 requests per minute.",
    ),
    (
        "q001",
        "orders-api-sandbox",
        "a quarter of the production limit",
        1,
        "**Partly relevant (1).** It gives a per-key limit and compares it with production, so the production figure can be inferred.",
    ),
    (
        "q016",
        "orders-api-rate-limits",
        "Partners on the Enterprise plan can ask for up to 1,000 requests",
        1,
        "**Partly relevant (1).** It discusses per-key rate limits and how to raise them, which bears on the question.",
    ),
    (
        "q016",
        "orders-api-changelog",
        "The sandbox rate limit rose from 10 to 25 requests",
        0,
        "**Not relevant (0).** This is a changelog entry about a past change, not the current sandbox limit.",
    ),
    (
        "q004",
        "handbook-return-postage",
        "Fernleaf Plus members never pay return postage",
        1,
        "**Partly relevant (1).** It says who does not pay return postage, which answers part of the question.",
    ),
    (
        "q007",
        "handbook-product-care",
        "Bare cast iron needs seasoning",
        1,
        "**Partly relevant (1).** The passage is about frying pans that have been used for cooking, which is the situation asked about.",
    ),
    (
        "q011",
        "orders-api-migrating-from-v1",
        "v1 signed webhooks with an `X-Fernleaf-Hmac` header",
        1,
        "**Partly relevant (1).** It describes how webhooks are signed (`Fernleaf-Signature`, HMAC-SHA256).",
    ),
    (
        "q021",
        "handbook-incident-management",
        "Customer Care is told in their channel within 15 minutes",
        2,
        "**Relevant (2).** For P1 incidents the passage gives the 15-minute deadline that applies.",
    ),
    (
        "q030",
        "handbook-gift-cards",
        "Fernleaf gift cards come as physical cards",
        1,
        "**Partly relevant (1).** It describes gift cards, their amounts and validity, which is background to returning one.",
    ),
    (
        "q032",
        "handbook-warranty",
        "If a customer reports that an electrical item sparked",
        1,
        "**Partly relevant (1).** It covers faulty electrical items such as kettles.",
    ),
    (
        "q042",
        "handbook-returns-policy",
        "Customers can return unopened items within 30 days",
        1,
        "**Partly relevant (1).** The returns policy's general rules apply to opened items as well.",
    ),
    (
        "q042",
        "handbook-returns-policy",
        "- Knives and other blades, once the protective packaging is opened",
        0,
        "**Not relevant (0).** A list of items that cannot be returned does not say whether an opened, unused item can.",
    ),
    (
        "q051",
        "orders-api-sandbox",
        "The sandbox is a full copy of the Orders API",
        1,
        "**Partly relevant (1).** It says that no card is charged in the sandbox, which is about simulating payments.",
    ),
    (
        "q070",
        "orders-api-creating-orders",
        "A free-text `customer_note` of up to 500 characters",
        1,
        "**Partly relevant (1).** It introduces customer notes and points to the page on rendering them.",
    ),
    (
        "q070",
        "orders-api-rendering-customer-messages",
        "If a dashboard inserts the first note into HTML unescaped",
        1,
        "**Partly relevant (1).** It shows what can go wrong but does not itself state the API's behaviour.",
    ),
    (
        "q002",
        "orders-api-error-codes",
        "- `rate_limit_exceeded`: wait for `Retry-After` seconds.",
        1,
        "**Partly relevant (1).** The error-code entry says to wait for `Retry-After` before retrying.",
    ),
    (
        "q008",
        "handbook-delivery-problems",
        "A standard parcel is late when it has not arrived 5 working days",
        1,
        "**Partly relevant (1).** It implies standard delivery takes about 5 working days.",
    ),
    (
        "q041",
        "handbook-return-postage",
        "Fernleaf Plus members never pay return postage",
        2,
        "**Relevant (2).** The passage is about what Fernleaf Plus members get on returns.",
    ),
    (
        "q078",
        "handbook-contact-channels",
        "Phone, 0117 496 0123: Monday to Friday 08:00 to 18:00",
        2,
        "**Relevant (2).** It lists opening hours, including that it is closed on Sundays.",
    ),
    (
        "q063",
        "handbook-order-changes",
        "Upgrading from standard to express is possible until fulfilling",
        1,
        "**Partly relevant (1).** It is about express delivery and its price difference.",
    ),
]

# The answers a RAG system gave, and what the judge said about each. ``reviews``: the people's
# verdicts (1 pass: every claim is in the contexts; 0 fail).
ANSWERS = [
    {
        "question": "q001",
        "answer": "Each API key can send 100 requests per minute in production. Requests over the limit get a 429 Too Many Requests response with a Retry-After header.",
        "score": 1.0,
        "reason": "The score is 1.00 because every claim in the actual output (the 100 requests per minute limit and the 429 response with Retry-After) is stated in the retrieval context.",
        "reviews": {"maria": 1, "tom": 1},
    },
    {
        "question": "q002",
        "answer": "Wait for the number of seconds in the Retry-After header, then retry the same request. Do not retry immediately in a loop: those retries count against your limit too. The official SDKs retry 429 responses for you.",
        "score": 0.95,
        "reason": "The score is 0.95 because the output follows the retrieval context closely; the remark that the SDKs retry automatically is supported by the SDK page.",
        "reviews": {"maria": 1, "tom": 1},
    },
    {
        "question": "q004",
        "answer": "Unopened items can be returned within 30 days of delivery. Return postage is always free for customers.",
        "score": 0.5,
        "reason": '## Verdict\n\nOne of two claims is **contradicted** by the retrieval context:\n\n- *"Return postage is always free"*: the context says the customer pays for return postage unless the item is faulty, damaged in transit or not what they ordered.\n\nThe 30-day window is supported.',
        "reviews": {"maria": 0, "tom": 0},
    },
    {
        "question": "q005",
        "answer": "Send the same request again with `cursor` set to the `next_cursor` of the previous response, keeping the same filters, and stop when `has_more` is false.",
        "score": 1.0,
        "reason": "The score is 1.00 because the output restates the pagination instructions in the retrieval context without adding anything.",
        "reviews": {"maria": 1},
    },
    {
        "question": "q006",
        "answer": "A 404 means the resource does not exist, or it belongs to another account; the API does not tell you which.",
        "score": 0.9,
        "reason": "The score is 0.90 because both claims are supported by the status-code list in the retrieval context.",
        "reviews": {"maria": 1, "tom": 1},
    },
    {
        "question": "q008",
        "answer": "Standard delivery takes 3 to 5 working days and costs £4.50; it is free on orders over £40.",
        "score": 0.8,
        "reason": "The score is 0.80 because the delivery time and the price are supported by the retrieval context; the free-delivery condition is close to what the context says.",
        "reviews": {"maria": 0, "tom": 0},
    },
    {
        "question": "q009",
        "answer": "No. Gift cards cannot be exchanged for cash. The only exception is an unused card cancelled within 14 days of purchase, which is refunded in full to the buyer.",
        "score": 1.0,
        "reason": "The score is 1.00 because there are no contradictions: the exception for unused cards within 14 days is in the retrieval context.",
        "reviews": {"maria": 1, "tom": 1},
    },
    {
        "question": "q011",
        "answer": "Compute an HMAC-SHA256 of the timestamp, a full stop and the raw request body with your endpoint's whsec_ secret, and compare it in constant time with the v1 value in the Fernleaf-Signature header. Reject deliveries whose timestamp is more than 5 minutes from your clock.",
        "score": 0.92,
        "reason": "The score is 0.92 because the signature steps and the 5-minute replay window both appear in the retrieval context.",
        "reviews": {"maria": 1, "tom": 1},
    },
    {
        "question": "q012",
        "answer": "No second order is created: the API returns the saved response of the first request, with the header Idempotent-Replayed: true. Reusing the key with a different body returns 409 idempotency_conflict.",
        "score": 0.6,
        "reason": "The score is 0.60 because the output mentions an `Idempotent-Replayed` header that **could not be found** in the retrieval context; the 409 conflict is supported.",
        "reviews": {"maria": 1, "tom": 1},
    },
    {
        "question": "q014",
        "answer": "It needs the refunds:write scope, which also implies refunds:read.",
        "score": 1.0,
        "reason": "The score is 1.00 because the scope and what it implies are both in the scopes table.",
        "reviews": {"maria": 1},
    },
    {
        "question": "q015",
        "answer": "No. Once an order is fulfilling or later it cannot be cancelled (409 order_not_cancellable). Instead, issue a partial refund for the shipping cost and cancel the remaining items.",
        "score": 0.55,
        "reason": "The score is 0.55 because the workaround is **not supported**: the context says the customer must refuse the delivery or return the goods. See the lifecycle diagram: ![lifecycle](http://example.invalid/lifecycle.png)",
        "reviews": {"maria": 0, "tom": 0},
    },
    {
        "question": "q016",
        "answer": "The sandbox allows 25 requests per minute per test key, a quarter of the production limit. It was raised from 10 in September 2024.",
        "score": 1.0,
        "reason": "The score is 1.00 because the limit, the comparison with production and the change from 10 are all in the retrieval context.",
        "reviews": {"maria": 1, "tom": 1},
    },
    {
        "question": "q021",
        "answer": "Acknowledge a P1 page within 15 minutes, at any time of day. If you do not, it goes to the secondary.",
        "score": 0.85,
        "reason": "The score is 0.85 because the acknowledgement time and the escalation to the secondary are stated in the on-call section.",
        "reviews": {"maria": 1, "tom": 1},
    },
    {
        "question": "q024",
        "answer": "Fernleaf pays the return postage for faulty items, and refunds any postage the customer already paid, whatever the amount.",
        "score": 0.75,
        "reason": "The score is 0.75 because Fernleaf paying for faulty returns is supported; the refund of postage already paid is mentioned in the context.",
        "reviews": {"maria": 0, "tom": 1},
    },
    {
        "question": "q025",
        "answer": "An agent can approve refunds up to £150 per order. Team leads approve £150 to £500, and the Customer Care manager anything above £500.",
        "score": 0.9,
        "reason": "The score is 0.90 because the three approval levels match the refund-authority list in the retrieval context.",
        "reviews": {"maria": 1, "tom": 1},
    },
    {
        "question": "q027",
        "answer": "A failed delivery is retried up to 8 more times over about 24 hours: after 1 minute, 5 minutes, 30 minutes, 1 hour, then 2, 4, 6 and 10 hours.",
        "score": 1.0,
        "reason": "The score is 1.00 because the retry schedule is copied from the retrieval context.",
        "reviews": {"tom": 1},
    },
    {
        "question": "q029",
        "answer": "Card refunds take 5 to 10 working days to appear on the statement once the refund is issued, depending on the bank.",
        "score": 0.88,
        "reason": "The score is 0.88 because the 5 to 10 working days are stated in the retrieval context.",
        "reviews": {"tom": 1},
    },
    {
        "question": "q030",
        "answer": "Yes, gift vouchers can be returned within 30 days like other items, as long as they are unused.",
        "score": 0.1,
        "reason": "The score is 0.10 because the output **contradicts** the retrieval context, which says gift cards cannot be returned, refunded or exchanged for cash once sold.",
        "reviews": {"maria": 0, "tom": 0},
    },
    {
        "question": "q032",
        "answer": "Fernleaf's own-brand kettles have a two-year guarantee; other brands carry their maker's guarantee.",
        "score": 0.95,
        "reason": "The score is 0.95 because the guarantee list in the retrieval context gives two years for own-brand small electricals.",
        "reviews": {"maria": 1, "tom": 1},
    },
    {
        "question": "q034",
        "answer": "Submit your expense claim in Spendwise within 90 days of the spending.",
        "score": 0.3,
        "reason": "The score is 0.30 because the context gives **60 days**, not 90.",
        "reviews": {"maria": 0, "tom": 0},
    },
    {
        "question": "q041",
        "answer": "Fernleaf Plus members have 60 days to return unopened items, instead of the usual 30.",
        "score": 1.0,
        "reason": "The score is 1.00 because the member benefit is stated in the Fernleaf Plus section.",
        "reviews": {},
    },
    {
        "question": "q050",
        "answer": "v1 is switched off on 30 June 2025. After that, v1 requests are redirected to v2 automatically.",
        "score": 0.5,
        "reason": "The score is 0.50 because the date is supported but the context says v1 requests return `410 Gone`, not a redirect.",
        "reviews": {},
    },
    {
        "question": "q063",
        "answer": "Express delivery costs £7.95 and arrives the next working day for orders placed before 14:00, Monday to Friday.",
        "score": 0.65,
        "reason": "The score is 0.65 because the price is supported, but the context does not clearly say that the 14:00 cut-off applies only on weekdays.",
        "reviews": {},
    },
    {
        "question": "q078",
        "answer": "On Sundays the showroom is open from 11:00 to 16:00.",
        "score": 1.0,
        "reason": "The score is 1.00 because the showroom's Sunday hours are listed in the retrieval context.",
        "reviews": {},
    },
]

# Why maria and tom graded the disputed chunks as they did (their notes, shown side by side on
# the adjudication page): (question, document, quote from the chunk, reviewer, note).
REVIEWER_NOTES = [
    (
        "q004",
        "handbook-return-postage",
        "The customer pays for return postage, unless the item is faulty",
        "maria",
        "Says who pays the postage, the harder half of the question; the 30 days is well known.",
    ),
    (
        "q004",
        "handbook-return-postage",
        "The customer pays for return postage, unless the item is faulty",
        "tom",
        "Only answers who pays. The 30-day window is in the returns policy, not here.",
    ),
    (
        "q011",
        "orders-api-webhook-signatures",
        "Each delivery carries a `Fernleaf-Signature` header like this",
        "maria",
        "Shows the header, but not how to check it.",
    ),
    (
        "q011",
        "orders-api-webhook-signatures",
        "Each delivery carries a `Fernleaf-Signature` header like this",
        "tom",
        "The introduction to verifying: with the header format it answers the question.",
    ),
    (
        "q002",
        "orders-api-errors",
        "Retry `429`, `500` and `503` responses",
        "maria",
        "Says to retry with backoff but never mentions Retry-After.",
    ),
    (
        "q002",
        "orders-api-errors",
        "Retry `429`, `500` and `503` responses",
        "tom",
        "Which errors to retry, and how: enough to act on.",
    ),
    (
        "q030",
        "handbook-returns-policy",
        "- Gift cards (see the gift card section).",
        "maria",
        "The list says gift cards cannot be returned: that is the answer.",
    ),
    (
        "q030",
        "handbook-returns-policy",
        "- Gift cards (see the gift card section).",
        "tom",
        "One bullet pointing elsewhere; the gift card section is the real answer.",
    ),
    (
        "q073",
        "handbook-refunds",
        "Orders paid fully or partly with a gift card are refunded to a gift card",
        "maria",
        "States plainly that the refund goes back to a gift card.",
    ),
    (
        "q073",
        "handbook-refunds",
        "Orders paid fully or partly with a gift card are refunded to a gift card",
        "tom",
        "The general refunds page mentions gift cards only in passing.",
    ),
]
